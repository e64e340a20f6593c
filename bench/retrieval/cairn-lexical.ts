/** cairn's lexical index as a benchmark ranker; dataset fields map generically onto entry fields. */
import { LexicalIndex, type LexicalDoc, type LexicalParamsInput } from "../../src/indexing/lexical/index.js";
import type { BenchDoc } from "./dataset.js";
import type { Ranker, Rankings } from "./ranker.js";

/** The same mapping for every set: `title` is the entry title, `text` is the entry body. */
export function toLexicalDoc(doc: BenchDoc): LexicalDoc {
  return { id: doc.id, fields: { title: doc.title, body: doc.text } };
}

export function cairnLexical(params: LexicalParamsInput = {}, name = "cairn lexical"): Ranker {
  return {
    name,
    rank: async (docs, queries, depth) => {
      const index = new LexicalIndex(params);
      for (const doc of docs) index.add(toLexicalDoc(doc));
      const rankings: Rankings = new Map();
      for (const q of queries) rankings.set(q.id, index.search(q.text, { limit: depth }).map((h) => h.id));
      return rankings;
    },
  };
}
