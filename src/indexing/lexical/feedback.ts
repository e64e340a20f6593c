/** RM3 pseudo-relevance feedback: expand a query with terms of its top-ranked documents. */
import type { DocTerms } from "./lexical-index.js";
import { topK } from "./top-k.js";

export type FeedbackParams = {
  /** Feedback documents taken from the first ranking; 0 disables feedback. Default 0. */
  docs: number;
  /** Expansion terms added to the query. Default 10. */
  terms: number;
  /** Weight of the original query in the mix (1 - weight goes to expansion terms). Default 0.5. */
  originalWeight: number;
};

export const DEFAULT_FEEDBACK: Readonly<FeedbackParams> = { docs: 0, terms: 10, originalWeight: 0.5 };

const normalise = (m: Map<string, number>): Map<string, number> => {
  let sum = 0;
  for (const v of m.values()) sum += v;
  if (sum > 0) for (const [k, v] of m) m.set(k, v / sum);
  return m;
};

/**
 * Mix the original query weights with a relevance model estimated from the top documents
 * (term probability within each document, weighted by the document's share of the scores).
 * `docFreq` lets very common terms (in more than half the collection) be skipped.
 */
export function rm3(
  original: ReadonlyMap<string, number>,
  scores: ReadonlyMap<string, number>,
  docTerms: (id: string) => DocTerms | undefined,
  docFreq: (term: string) => number,
  collectionSize: number,
  p: FeedbackParams,
): Map<string, number> {
  const top = topK(scores, p.docs);
  if (top.length === 0 || p.terms <= 0) return new Map(original);
  const topScore = top.reduce((s, [, score]) => s + score, 0);
  const model = new Map<string, number>();
  for (const [id, score] of top) {
    const doc = docTerms(id);
    if (!doc) continue;
    const length = doc.lengths.reduce((a, b) => a + b, 0);
    if (length === 0) continue;
    for (const [term, tf] of doc.terms) {
      if (term.includes(" ")) continue; // shingles are matched literally, not expanded
      if (docFreq(term) > collectionSize / 2) continue;
      const count = tf.reduce((a, b) => a + b, 0);
      model.set(term, (model.get(term) ?? 0) + (score / topScore) * (count / length));
    }
  }
  const expansion = normalise(new Map(topK(model, p.terms)));
  const mixed = normalise(new Map(original));
  for (const [t, w] of mixed) mixed.set(t, p.originalWeight * w);
  for (const [t, w] of expansion) mixed.set(t, (mixed.get(t) ?? 0) + (1 - p.originalWeight) * w);
  return mixed;
}
