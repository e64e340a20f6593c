/** Match a finding's text to entries, with a score in [0, 1] compared against a threshold. */
import { normalPath, sharedAnchor } from "../entry/anchor-overlap.js";
import type { Anchor, EntryCard } from "../entry/types.js";
import type { SearchOptions, SearchResponse, SearchResult } from "../retrieval/search.js";

export type Match = { id: string; score: number; state: "active" | "archived" };

export type Search = (query: string, options: SearchOptions) => Promise<SearchResponse>;

/**
 * Similarity of a search result to the finding, in [0, 1]. Lexical: the share of the finding's idf
 * weight the entry matches. With vectors: the mean of that share and the embedding cosine — either
 * alone is fooled (a few shared words; a paraphrase-only model that is weak on code), together they
 * must both lean towards a match.
 */
export function matchScore(result: SearchResult, mode: SearchResponse["mode"]): number {
  const lexical = result.explain.lexical?.matched ?? 0;
  if (mode === "lexical") return lexical;
  return (lexical + Math.max(0, result.explain.vector?.similarity ?? 0)) / 2;
}

/** Candidates scored against `text`, best first (ties: active before archived, then by id). `ids` restricts them to those entries. */
export async function scoreCandidates(search: Search, text: string, options: { includeArchived?: boolean; ids?: ReadonlySet<string>; limit?: number } = {}): Promise<Match[]> {
  if (options.ids?.size === 0) return [];
  const response = await search(text, {
    limit: options.limit ?? options.ids?.size ?? 10,
    floor: false,
    withVectors: true,
    includeArchived: options.includeArchived ?? false,
    ...(options.ids ? { ids: options.ids } : {}),
  });
  return response.results
    .map((r) => ({ id: r.id, state: r.state, score: Math.round(matchScore(r, response.mode) * 1000) / 1000 }))
    .sort(byScore);
}

export async function bestMatch(search: Search, text: string, options: { includeArchived?: boolean; threshold: number }): Promise<{ match: Match | null; best: Match | null }> {
  const scored = await scoreCandidates(search, text, { includeArchived: options.includeArchived ?? false, limit: 5 });
  const best = scored[0] ?? null;
  return { best, match: best && best.score >= options.threshold ? best : null };
}

/**
 * The score a finding's text alone needs before a shared place counts at all. The place is a second
 * opinion on a text that already leans towards the entry, never a match on its own: a JSDoc nit cited
 * at the line of a known bug says nothing about that bug. Measured on the integrity world (5 seeds,
 * lexical, the finding's text alone): paraphrased re-discoveries score 0.215–1 against their own entry,
 * another defect cited at the same place 0–0.275 (71 of 16,530 pairs at or above 0.2, 10 above 0.25,
 * none above 0.3). At 0.2 no paraphrase is lost; see README "Matching".
 */
export const PLACE_NEEDS_TEXT = 0.2;

/**
 * Agents re-finding a pattern rarely use its words, but they say where it is. `matches` are scored on
 * the query (for `record`, the finding's text and evidence); `textOf` gives an entry's score on the
 * finding's text alone. An entry that cites the same place as the finding (anchor-overlap.ts: same file
 * and symbol, or overlapping lines) and whose text alone scores at least PLACE_NEEDS_TEXT scores the
 * mean of its query score and 1 — the place counts as a second opinion, like the embedding cosine in
 * `matchScore` — so a paraphrase at the same place matches, and the text still decides between entries
 * that share the place. Below that, the place counts for nothing: the entry keeps its text-alone score
 * (the evidence's words are the place too, and would otherwise lift it). Entries the search did not
 * return gain nothing.
 */
export function withSharedAnchors(matches: readonly Match[], anchors: readonly Anchor[], entries: Iterable<Pick<EntryCard, "id" | "state" | "anchors">>, textOf: (id: string) => number | undefined): Match[] {
  if (!anchors.length) return [...matches];
  const byId = new Map(matches.map((m) => [m.id, m]));
  for (const entry of entries) {
    const query = byId.get(entry.id)?.score;
    if (query === undefined || !sharedAnchor(anchors, entry.anchors)) continue;
    const text = textOf(entry.id) ?? 0;
    const score = text >= PLACE_NEEDS_TEXT ? (query + 1) / 2 : Math.min(query, text);
    byId.set(entry.id, { id: entry.id, state: entry.state, score: Math.round(score * 1000) / 1000 });
  }
  return [...byId.values()].sort(byScore);
}

/** The entries of `near` that share a place with `anchors` (and are among `ids`, when given). */
export function atSamePlace<E extends Pick<EntryCard, "id" | "anchors">>(anchors: readonly Anchor[], near: readonly E[], ids?: ReadonlySet<string>): E[] {
  return anchors.length ? near.filter((e) => (!ids || ids.has(e.id)) && sharedAnchor(anchors, e.anchors) !== undefined) : [];
}

function byScore(a: Match, b: Match): number {
  return b.score - a.score || (a.state === b.state ? (a.id < b.id ? -1 : 1) : a.state === "active" ? -1 : 1);
}

/** Entries by the files their anchors name, so that `withSharedAnchors` only looks at entries anchored in the same files. */
export function anchorIndex<E extends Pick<EntryCard, "anchors">>(entries: Iterable<E>): (anchors: readonly Anchor[]) => E[] {
  const byPath = new Map<string, E[]>();
  for (const entry of entries) {
    for (const p of new Set(entry.anchors.flatMap((a) => (a.path && !a.glob ? [normalPath(a.path)] : [])))) {
      const list = byPath.get(p);
      if (list) list.push(entry);
      else byPath.set(p, [entry]);
    }
  }
  return (anchors) => [...new Set(anchors.flatMap((a) => (a.path ? (byPath.get(normalPath(a.path)) ?? []) : [])))];
}
