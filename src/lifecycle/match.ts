/** Match a finding's text to the closest entry, with a score in [0, 1] compared against a threshold. */
import type { SearchOptions, SearchResponse, SearchResult } from "../retrieval/search.js";

export type Match = { id: string; score: number; state: "active" | "archived" };

/**
 * Similarity of a search result to the query: the cosine similarity when the vector signal saw it,
 * else the share of the query's idf weight the entry matches lexically — whichever is higher.
 */
export function matchScore(result: SearchResult): number {
  const vector = result.explain.vector?.similarity ?? 0;
  const lexical = result.explain.lexical?.matched ?? 0;
  return Math.max(vector, lexical);
}

export async function bestMatch(
  search: (query: string, options: SearchOptions) => Promise<SearchResponse>,
  text: string,
  options: { includeArchived?: boolean; threshold: number },
): Promise<{ match: Match | null; best: Match | null }> {
  const response = await search(text, { limit: 5, floor: false, includeArchived: options.includeArchived ?? false });
  const scored = response.results
    .map((r) => ({ id: r.id, state: r.state, score: Math.round(matchScore(r) * 1000) / 1000 }))
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
  const best = scored[0] ?? null;
  return { best, match: best && best.score >= options.threshold ? best : null };
}
