/** Match a finding's text to entries, with a score in [0, 1] compared against a threshold. */
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
    .sort((a, b) => b.score - a.score || (a.state === b.state ? (a.id < b.id ? -1 : 1) : a.state === "active" ? -1 : 1));
}

export async function bestMatch(search: Search, text: string, options: { includeArchived?: boolean; threshold: number }): Promise<{ match: Match | null; best: Match | null }> {
  const scored = await scoreCandidates(search, text, { includeArchived: options.includeArchived ?? false, limit: 5 });
  const best = scored[0] ?? null;
  return { best, match: best && best.score >= options.threshold ? best : null };
}
