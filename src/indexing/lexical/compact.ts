/**
 * Compaction of the persisted lexical index (layered.ts): a new base segment holding every live document of a base
 * segment and an overlay — base survivors in order (renumbered), then the overlay's documents by id — written
 * pair by pair, without decoding the base's posting lists into arrays per document.
 */
import { SLOTS } from "./analyze.js";
import type { OverlayDoc } from "./layered.js";
import { overlayPairs } from "./overlay-pairs.js";
import type { LexicalParams } from "./params.js";
import { writeSegment, type Segment, type SegmentDoc } from "./segment.js";

/** The base segment, its removed or replaced documents (number → 1), and the live documents of a term in it. */
export type CompactBase = { base: Segment; dead: Uint8Array; liveDocs: (t: number) => number };

/** The segment bytes of `live`'s surviving documents plus `overlay` (`overlayTermKeys`: every term it holds, once each, in any order). */
export function compactLayers(params: LexicalParams, live: CompactBase, overlay: ReadonlyMap<string, OverlayDoc>, overlayTermKeys: readonly string[]): Uint8Array {
  const { base, dead } = live;
  // Every posting is read (one read of the whole lists, not one per term).
  const all = base.allPairs().docs;
  // Renumber base survivors, then append the overlay; merge both sorted dictionaries term by term.
  const renumber = new Int32Array(base.size).fill(-1);
  const docs: Array<Pick<SegmentDoc, "id" | "hash" | "lengths">> = [];
  for (let num = 0; num < base.size; num++) {
    if (dead[num]) continue;
    renumber[num] = docs.length;
    docs.push({ id: base.id(num), hash: base.hash(num), lengths: Array.from(base.lengths.subarray(num * SLOTS, (num + 1) * SLOTS)) });
  }
  const sorted = [...overlay].sort((a, b) => (a[0] < b[0] ? -1 : 1));
  const firstOverlayNum = docs.length;
  for (const [id, d] of sorted) docs.push({ id, hash: d.hash, lengths: d.lengths });
  const overlayTerms = [...overlayTermKeys].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const fresh = overlayPairs(
    sorted.map(([, d]) => d),
    overlayTerms,
    firstOverlayNum,
  );
  // Merge both sorted dictionaries; per merged term, its base index (or -1) and its overlay term index (or -1),
  // in flat arrays (a 100k-entry base has ~10⁶ terms: no tuple per term). Terms whose every posting died are dropped.
  const terms: string[] = [];
  const baseOf: number[] = [];
  const overlayOf: number[] = [];
  let i = 0;
  let j = 0;
  while (i < base.termCount || j < overlayTerms.length) {
    const bt = i < base.termCount ? base.term(i) : undefined;
    const ot = overlayTerms[j];
    let b = -1;
    let o = -1;
    if (bt !== undefined && (ot === undefined || bt < ot)) b = i++;
    else if (bt !== undefined && bt === ot) (b = i++), (o = j++);
    else o = j++;
    if (o < 0 && live.liveDocs(b) === 0) continue;
    terms.push(o >= 0 ? overlayTerms[o]! : bt!);
    baseOf.push(b);
    overlayOf.push(o);
  }
  const starts = base.postingStart;
  const packedPairs = base.allPairs().slotCounts;
  // Base pairs are copied as they are, renumbered (renumbering keeps their order); the overlay's follow.
  const pairsOf = (k: number, emit: (doc: number, packed: number) => void): void => {
    const bt = baseOf[k]!;
    const ot = overlayOf[k]!;
    if (bt >= 0) {
      for (let p = starts[bt]!, end = starts[bt + 1]!; p < end; p++) {
        const num = renumber[all[p]!]!;
        if (num >= 0) emit(num, packedPairs[p]!);
      }
    }
    if (ot >= 0) for (let p = fresh.start[ot]!, end = fresh.start[ot + 1]!; p < end; p++) emit(fresh.docs[p]!, fresh.packed[p]!);
  };
  // Pairs counted from the flat arrays, not by decoding every posting list an extra time.
  let pairs = fresh.docs.length;
  for (let p = 0; p < all.length; p++) if (!dead[all[p]!]) pairs++;
  return writeSegment(params, docs, { terms, pairsOf, pairs });
}
