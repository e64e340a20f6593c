/** Textbook BM25 (k1 1.2, b 0.75, OR semantics, lowercase `\w+` tokens, title + text as one field). */
import type { Ranker, Rankings } from "./ranker.js";

const words = (text: string): string[] => text.toLowerCase().match(/\w+/g) ?? [];

/** The reference every cairn ranker is compared against in the same run. */
export function textbookBm25(k1 = 1.2, b = 0.75): Ranker {
  return {
    name: "textbook BM25",
    rank: async (docs, queries, depth) => {
      const postings = new Map<string, Map<number, number>>();
      const lengths = docs.map((doc, i) => {
        const tokens = words(`${doc.title}\n${doc.text}`);
        for (const t of tokens) {
          const list = postings.get(t) ?? new Map<number, number>();
          list.set(i, (list.get(i) ?? 0) + 1);
          postings.set(t, list);
        }
        return tokens.length;
      });
      const n = docs.length;
      const avg = lengths.reduce((a, l) => a + l, 0) / Math.max(1, n);
      const rankings: Rankings = new Map();
      for (const query of queries) {
        const scores = new Map<number, number>();
        for (const term of words(query.text)) {
          const list = postings.get(term);
          if (!list) continue;
          const idf = Math.log(1 + (n - list.size + 0.5) / (list.size + 0.5));
          for (const [doc, tf] of list) {
            const norm = tf / (tf + k1 * (1 - b + (b * (lengths[doc] ?? 0)) / avg));
            scores.set(doc, (scores.get(doc) ?? 0) + idf * (k1 + 1) * norm);
          }
        }
        const ranked = [...scores]
          .sort((x, y) => y[1] - x[1] || ((docs[x[0]]?.id ?? "") < (docs[y[0]]?.id ?? "") ? -1 : 1))
          .slice(0, depth)
          .map(([doc]) => docs[doc]?.id ?? "");
        rankings.set(query.id, ranked);
      }
      return rankings;
    },
  };
}
