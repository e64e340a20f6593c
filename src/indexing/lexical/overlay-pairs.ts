/** The overlay's postings as flat packed pairs by term, for a compaction to copy into a segment. */
import { CairnError } from "../../errors.js";
import type { DocTerms } from "./lexical-index.js";
import { SLOT_BITS } from "./segment-format.js";

/** Term j's pairs are [start[j], start[j + 1]): a document number and its `count << SLOT_BITS | slot`, documents ascending. */
export type OverlayPairs = { start: Uint32Array; docs: Uint32Array; packed: Uint32Array };

/**
 * `docs` are numbered `firstNum`, `firstNum + 1`, … in the order given; `terms` is every term they hold (each once).
 * Two passes over the documents' terms, one map lookup per (document, term): a lookup per posting in two maps
 * (the holders of a term, then the term in each holder) took most of a first index's compaction time.
 */
export function overlayPairs(docs: ReadonlyArray<Pick<DocTerms, "terms">>, terms: readonly string[], firstNum: number): OverlayPairs {
  const termIndex = new Map<string, number>();
  for (let j = 0; j < terms.length; j++) termIndex.set(terms[j]!, j);
  let visits = 0;
  for (const d of docs) visits += d.terms.size;
  // Pass 1: pairs per term, and the term index of every (document, term) visit for pass 2.
  const start = new Uint32Array(terms.length + 1);
  const visited = new Int32Array(visits);
  let v = 0;
  for (const d of docs) {
    for (const [term, tf] of d.terms) {
      const j = termIndex.get(term);
      if (j === undefined) throw new CairnError("INVALID", `internal error: overlay term "${term}" missing from its dictionary`);
      visited[v++] = j;
      start[j + 1]! += tf.length / 2;
    }
  }
  for (let j = 0; j < terms.length; j++) start[j + 1]! += start[j]!;
  const total = start[terms.length]!;
  const cursor = start.slice(0, terms.length);
  const out = { start, docs: new Uint32Array(total), packed: new Uint32Array(total) };
  v = 0;
  docs.forEach((d, x) => {
    const num = firstNum + x;
    for (const tf of d.terms.values()) {
      const j = visited[v++]!;
      for (let k = 0; k < tf.length; k += 2) {
        const at = cursor[j]!++;
        out.docs[at] = num;
        out.packed[at] = ((tf[k + 1] ?? 0) << SLOT_BITS) | (tf[k] ?? 0);
      }
    }
  });
  return out;
}
