/** Text → terms: a document's per-slot term frequencies and a query's weighted terms, for any lexical index. */
import type { DocTerms, FieldTf, WeightedQuery } from "./lexical-index.js";
import { LEXICAL_FIELDS, type LexicalDoc, type LexicalParams } from "./params.js";
import { isPhrase, isShingle, tokenizeRegions } from "./tokenize.js";

/** Slots per document: each field's prose, then the same fields' code regions. */
export const SLOTS = LEXICAL_FIELDS.length * 2;

/** Add one occurrence of a term in `slot` to its sparse frequencies. */
function bump(tf: FieldTf, slot: number): void {
  for (let i = 0; i < tf.length; i += 2) {
    if (tf[i] === slot) {
      tf[i + 1] = (tf[i + 1] ?? 0) + 1;
      return;
    }
  }
  tf.push(slot, 1);
}

/** Tokenize a document's fields into the per-slot term frequencies an index stores. */
export function analyzeDoc(params: LexicalParams, doc: LexicalDoc): DocTerms {
  const terms = new Map<string, FieldTf>();
  const lengths = new Array<number>(SLOTS).fill(0);
  LEXICAL_FIELDS.forEach((field, f) => {
    const text = doc.fields[field];
    if (!text) return;
    for (const region of tokenizeRegions(text, params.tokenizer)) {
      const slot = region.code ? f + LEXICAL_FIELDS.length : f;
      for (const t of region.terms) {
        // Prose phrases ride on their words; counting them would penalise long prose twice.
        if (!isPhrase(t)) lengths[slot] = (lengths[slot] ?? 0) + 1;
        const tf = terms.get(t);
        if (tf) bump(tf, slot);
        else terms.set(t, [slot, 1]);
      }
    }
  });
  return { terms, lengths };
}

/** Tokenize a query into distinct terms weighted by query frequency and term kind. */
export function weighQuery(params: LexicalParams, query: string): WeightedQuery {
  const counts = new Map<string, number>();
  let code = false;
  for (const region of tokenizeRegions(query, params.tokenizer)) {
    code ||= region.code && region.terms.length > 0;
    for (const t of region.terms) counts.set(t, (counts.get(t) ?? 0) + 1);
  }
  const { queryTf, shingleWeight, phraseWeight } = params;
  for (const [t, n] of counts) {
    const tf = queryTf === "binary" ? 1 : queryTf === "log" ? 1 + Math.log(n) : n;
    counts.set(t, tf * (isShingle(t) ? shingleWeight : isPhrase(t) ? phraseWeight : 1));
  }
  return { weights: counts, code };
}

/** Per-slot field weight and length normalisation `b` of an index's parameters. */
export function slotWeights(params: LexicalParams): { weights: number[]; bs: number[] } {
  const { fields, code } = params;
  return {
    weights: [...LEXICAL_FIELDS.map((f) => fields[f].weight), ...LEXICAL_FIELDS.map((f) => fields[f].weight * code.weight)],
    bs: [...LEXICAL_FIELDS.map((f) => fields[f].b), ...LEXICAL_FIELDS.map(() => code.b)],
  };
}
