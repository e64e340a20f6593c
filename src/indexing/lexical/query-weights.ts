/** The relevance floor's view of a query: each of its terms weighted by the term's idf in the index searched. */

/** What the weights read of a lexical index (the persisted `LayeredLexical` or an in-memory `LexicalIndex`). */
export type TermStatistics = { readonly size: number; queryTerms(query: string): Map<string, number>; documentFrequency(term: string): number };

/** Query term → its query weight × BM25 idf in `index` (N at least 1). */
export function queryWeights(index: TermStatistics, query: string): Map<string, number> {
  const n = Math.max(1, index.size);
  const out = new Map<string, number>();
  for (const [term, qw] of index.queryTerms(query)) {
    const df = index.documentFrequency(term);
    out.set(term, qw * Math.log(1 + (n - df + 0.5) / (df + 0.5)));
  }
  return out;
}
