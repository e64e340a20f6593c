/**
 * The agent's keywords in `inject`: the review's own query (summary, diff, changed files) decides which entries
 * are relevant; the keywords-only ranking only re-orders them, by reciprocal-rank fusion with a small weight.
 */
import type { SearchResponse } from "./search.js";

/** Reciprocal-rank merge of ranked lists (k 60, list weights default 1); an item keeps its first list's copy; ties by id. */
export function mergeRanked<T extends { id: string }>(lists: ReadonlyArray<readonly T[]>, weights: readonly number[] = []): Array<{ item: T; score: number }> {
  const byId = new Map<string, { item: T; score: number }>();
  lists.forEach((list, l) => {
    const weight = weights[l] ?? 1;
    list.forEach((item, i) => {
      const current = byId.get(item.id);
      byId.set(item.id, { item: current?.item ?? item, score: (current?.score ?? 0) + weight / (60 + i + 1) });
    });
  });
  return [...byId.values()].sort((a, b) => b.score - a.score || (a.item.id < b.item.id ? -1 : 1));
}

/**
 * Weight of the keywords-only ranking when it re-ranks the full query's results (the full query's is 1).
 * Default 0.05, a tie-breaker (bench/retrieval-floor.ts, inject-style queries: at 1, 0.5 and 0.25
 * an agent's generic keywords reorder the review's own matches enough to push the right entry out
 * of the five — at 0.25 inject-style Cranfield kept 87% of Hit@5, at 0.05 96%; near-equal matches
 * still go the agent's way).
 */
export const KEYWORD_FOCUS_WEIGHT = 0.05;

/** Why an entry matching only the agent's keywords is not injected. */
export const KEYWORDS_ONLY_REASON = "matches the agent's keywords, but nothing of the change under review (summary, diff, changed files)";

/**
 * The full query's results, re-ranked by reciprocal-rank fusion with the keywords-only results;
 * entries found by the keywords alone are listed below the floor (they say nothing about this review).
 * Only the order within the first `window` results (not counting `skip`ped ids: those injected earlier
 * in the run) changes: which entries fill the slots is the review's decision, the agent's keywords
 * only order them (before, an entry just past the slots could overtake the last one on a keyword
 * match: on held-out inject-style Cranfield queries that pushed the right entry out of the five in 2
 * of 112 queries, and on review-anchored 2 of 173).
 */
export function focusResponses(full: SearchResponse, keywords: SearchResponse, window = Infinity, skip: ReadonlySet<string> = new Set()): SearchResponse {
  let cut = 0;
  for (let open = window; cut < full.results.length && open > 0; cut++) if (!skip.has(full.results[cut]!.id)) open--;
  const head = full.results.slice(0, cut);
  const supported = new Set(head.map((r) => r.id));
  const reordered = mergeRanked([head, keywords.results.filter((r) => supported.has(r.id))], [1, KEYWORD_FOCUS_WEIGHT]).map(({ item, score }) => ({ ...item, score: Number(score.toFixed(6)) }));
  const results = [...reordered, ...full.results.slice(cut)];
  const fullIds = new Set(full.results.map((r) => r.id));
  const keywordOnly = keywords.results.filter((r) => !fullIds.has(r.id)).map((r) => ({ ...r, explain: { ...r.explain, relevant: false, cut: [KEYWORDS_ONLY_REASON] } }));
  const below = full.belowFloor || keywords.belowFloor ? [...keywordOnly, ...(full.belowFloor ?? [])] : undefined;
  return {
    results,
    warnings: [...new Set([...full.warnings, ...keywords.warnings])],
    mode: full.mode === "hybrid" || keywords.mode === "hybrid" ? "hybrid" : "lexical",
    ...(below ? { belowFloor: below } : {}),
  };
}
