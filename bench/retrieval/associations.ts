/**
 * Term associations learned offline from the collection itself (issue 10, vocabulary mismatch): the
 * words and identifier parts that occur in the same entries (with its anchored code, in a knowledge
 * base that has it) more often than chance, by normalised PMI over document co-occurrence, computed
 * once at index time; a query is expanded with each of its terms' strongest associates at a fraction
 * of that term's weight. Only the index's own analysis is used (cairn's tokenizer, its docTerms), no
 * outside data. A bench ranker: it stays out of src/ unless it earns its place (retrieval-vocabulary.ts).
 */
import { isPhrase, isShingle, LexicalIndex, type LexicalParamsInput } from "../../src/indexing/lexical/index.js";
import { toLexicalDoc } from "./cairn-lexical.js";
import type { Ranker, Rankings } from "./ranker.js";

export type AssociationOptions = {
  /** Associates kept per term. */
  neighbours: number;
  /** Lowest normalised PMI kept (0 = independent, 1 = always together). */
  minNpmi: number;
  /** Weight of an associate relative to the query term it expands, times its NPMI. */
  beta: number;
  /** Terms in fewer entries carry no statistics; in more than this share of entries, no meaning. */
  minDf: number;
  maxDfShare: number;
  /** Distinct terms per entry that take part (the rarest), bounding the pair count on long entries. */
  termsPerDoc: number;
};

export const DEFAULT_ASSOCIATIONS: AssociationOptions = { neighbours: 5, minNpmi: 0.4, beta: 0.2, minDf: 2, maxDfShare: 0.1, termsPerDoc: 150 };

const isWord = (t: string): boolean => !isPhrase(t) && !isShingle(t) && /\w/.test(t);

/** term → its associates with their NPMI, strongest first. */
export function learnAssociations(index: LexicalIndex, options: AssociationOptions): Map<string, Array<[string, number]>> {
  const ids = index.ids();
  const n = ids.length;
  const df = new Map<string, number>();
  const docs: string[][] = [];
  for (const id of ids) {
    const terms = [...(index.docTerms(id)?.terms.keys() ?? [])].filter(isWord);
    docs.push(terms);
    for (const t of terms) df.set(t, (df.get(t) ?? 0) + 1);
  }
  const usable = (t: string) => {
    const d = df.get(t) ?? 0;
    return d >= options.minDf && d <= options.maxDfShare * n;
  };
  const pairs = new Map<string, Map<string, number>>();
  for (const terms of docs) {
    const kept = terms.filter(usable).sort((a, b) => df.get(a)! - df.get(b)! || (a < b ? -1 : 1)).slice(0, options.termsPerDoc);
    for (let i = 0; i < kept.length; i++) {
      for (let j = i + 1; j < kept.length; j++) {
        const [a, b] = kept[i]! < kept[j]! ? [kept[i]!, kept[j]!] : [kept[j]!, kept[i]!];
        let row = pairs.get(a);
        if (!row) pairs.set(a, (row = new Map()));
        row.set(b, (row.get(b) ?? 0) + 1);
      }
    }
  }
  const out = new Map<string, Array<[string, number]>>();
  const push = (from: string, to: string, score: number) => {
    const list = out.get(from) ?? [];
    list.push([to, score]);
    out.set(from, list);
  };
  for (const [a, row] of pairs) {
    for (const [b, together] of row) {
      if (together < 2) continue;
      const pab = together / n;
      const npmi = Math.log(pab / ((df.get(a)! / n) * (df.get(b)! / n))) / -Math.log(pab);
      if (npmi < options.minNpmi) continue;
      push(a, b, npmi);
      push(b, a, npmi);
    }
  }
  for (const [t, list] of out) out.set(t, list.sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1)).slice(0, options.neighbours));
  return out;
}

/** cairn lexical with queries expanded by the collection's own term associations. */
export function associationExpansion(options: AssociationOptions, name: string, params: LexicalParamsInput = {}): Ranker {
  return {
    name,
    rank: async (docs, queries, depth) => {
      const index = new LexicalIndex(params);
      for (const doc of docs) index.add(toLexicalDoc(doc));
      const associations = learnAssociations(index, options);
      const rankings: Rankings = new Map();
      for (const q of queries) {
        const weights = new Map(index.queryTerms(q.text));
        for (const [term, w] of [...weights]) {
          if (!isWord(term)) continue;
          for (const [associate, npmi] of associations.get(term) ?? []) {
            const add = options.beta * npmi * w;
            weights.set(associate, Math.max(weights.get(associate) ?? 0, add));
          }
        }
        const scores = [...index.scoreTerms(weights)].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
        rankings.set(q.id, scores.slice(0, depth).map(([id]) => id));
      }
      return rankings;
    },
  };
}
