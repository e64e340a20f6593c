/** Writing a binary lexical segment (layout: segment-format.ts) from analysed documents, or from a merge of postings. */
import { CairnError } from "../../errors.js";
import type { FieldTf } from "./lexical-index.js";
import type { LexicalParams } from "./params.js";
import { align4, fnv1a, MAGIC, SEGMENT_SLOTS, SEGMENT_VERSION, SLOT_BITS, type Header, type Sections } from "./segment-format.js";
import { TOKENIZER_VERSION } from "./tokenize.js";

/** One document as a segment is built from it: id, the hash of the fields it was analyzed from, and its analysis. */
export type SegmentDoc = { id: string; hash: string; terms: ReadonlyMap<string, FieldTf>; lengths: readonly number[] };

const encoder = new TextEncoder();

/** A sorted term dictionary with, per term, its (document, slot) pairs. */
export type PostingSource = {
  /** Terms in ascending code-unit order. */
  terms: string[];
  /**
   * Term i's pairs in ascending document order (a document's pairs together), each as `emit(document,
   * count << SLOT_BITS | slot)`: a merge copies a segment's packed pairs as they are, no array per posting.
   */
  pairsOf(i: number, emit: (doc: number, packed: number) => void): void;
  /** The number of (document, slot) pairs over all postings, when the source knows it (saves a pass over every posting list). */
  pairs?: number;
};

/** A document's slot frequencies ([slot, count, …]) as packed pairs. */
function emitTf(doc: number, tf: FieldTf, emit: (doc: number, packed: number) => void): void {
  for (let k = 0; k < tf.length; k += 2) emit(doc, ((tf[k + 1] ?? 0) << SLOT_BITS) | (tf[k] ?? 0));
}

/** Build a segment from documents (numbered in the given order). */
export function buildSegment(params: LexicalParams, docs: readonly SegmentDoc[]): Uint8Array {
  const byTerm = new Map<string, { docs: number[]; tfs: FieldTf[] }>();
  docs.forEach((doc, num) => {
    for (const [term, tf] of doc.terms) {
      let list = byTerm.get(term);
      if (!list) byTerm.set(term, (list = { docs: [], tfs: [] }));
      list.docs.push(num);
      list.tfs.push(tf);
    }
  });
  const terms = [...byTerm.keys()].sort(compareStrings);
  const lists = terms.map((t) => byTerm.get(t)!);
  return writeSegment(params, docs, {
    terms,
    pairsOf(i, emit) {
      const list = lists[i]!;
      for (let x = 0; x < list.docs.length; x++) emitTf(list.docs[x]!, list.tfs[x]!, emit);
    },
  });
}

/** Write a segment from documents and a posting source over them (used to merge segments without re-analyzing). */
export function writeSegment(params: LexicalParams, docs: ReadonlyArray<Pick<SegmentDoc, "id" | "hash" | "lengths">>, source: PostingSource): Uint8Array {
  const n = docs.length;
  // UTF-8 lengths first, bytes encoded straight into the output: no array per string (a 100k-entry segment has ~10⁶ terms).
  const idLengths = docs.map((d) => Buffer.byteLength(d.id));
  const hashLengths = docs.map((d) => Buffer.byteLength(d.hash));
  const termLengths = source.terms.map((t) => Buffer.byteLength(t));
  let pairs = source.pairs ?? 0;
  if (source.pairs === undefined) for (let i = 0; i < source.terms.length; i++) source.pairsOf(i, () => pairs++);
  const tableSize = tableSizeFor(source.terms.length);
  const sum = (list: number[]) => list.reduce((s, b) => s + b, 0);

  const sections = {} as Sections;
  let at = 0;
  const place = (name: keyof Sections, bytes: number) => {
    sections[name] = at;
    at = align4(at + bytes);
  };
  place("docIdOffsets", 4 * (n + 1));
  place("docIds", sum(idLengths));
  place("docHashOffsets", 4 * (n + 1));
  place("docHashes", sum(hashLengths));
  place("lengths", 4 * n * SEGMENT_SLOTS);
  place("termOffsets", 4 * (source.terms.length + 1));
  place("terms", sum(termLengths));
  place("table", 4 * tableSize);
  place("postingStart", 4 * (source.terms.length + 1));
  place("termDocs", 4 * source.terms.length);
  place("pairDoc", 4 * pairs);
  place("pairSlotCount", 4 * pairs);
  sections.end = at;

  const header: Header = {
    format: "cairn-lexical-segment",
    version: SEGMENT_VERSION,
    tokenizerVersion: TOKENIZER_VERSION,
    params,
    docs: n,
    terms: source.terms.length,
    pairs,
    tableSize,
    sections,
  };
  const headerBytes = encoder.encode(JSON.stringify(header));
  const bodyStart = align4(8 + headerBytes.length);
  const out = new Uint8Array(bodyStart + sections.end);
  const view = new DataView(out.buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint32(4, headerBytes.length, true);
  out.set(headerBytes, 8);
  const u32 = (section: keyof Sections, length: number) => new Uint32Array(out.buffer, bodyStart + sections[section], length);

  const writeStrings = (offsetsAt: keyof Sections, bytesAt: keyof Sections, list: readonly string[], lengths: readonly number[]) => {
    const offsets = u32(offsetsAt, list.length + 1);
    const base = bodyStart + sections[bytesAt];
    let pos = 0;
    list.forEach((text, i) => {
      offsets[i] = pos;
      encoder.encodeInto(text, out.subarray(base + pos, base + pos + lengths[i]!));
      pos += lengths[i]!;
    });
    offsets[list.length] = pos;
  };
  writeStrings("docIdOffsets", "docIds", docs.map((d) => d.id), idLengths);
  writeStrings("docHashOffsets", "docHashes", docs.map((d) => d.hash), hashLengths);
  writeStrings("termOffsets", "terms", source.terms, termLengths);

  const lengths = u32("lengths", n * SEGMENT_SLOTS);
  docs.forEach((d, num) => {
    for (let s = 0; s < SEGMENT_SLOTS; s++) lengths[num * SEGMENT_SLOTS + s] = d.lengths[s] ?? 0;
  });

  const table = u32("table", tableSize);
  const termsStart = bodyStart + sections.terms;
  const termOffsets = u32("termOffsets", source.terms.length + 1);
  for (let t = 0; t < source.terms.length; t++) {
    let slot = fnv1a(out, termsStart + termOffsets[t]!, termsStart + termOffsets[t + 1]!) & (tableSize - 1);
    while (table[slot] !== 0) slot = (slot + 1) & (tableSize - 1);
    table[slot] = t + 1;
  }

  const postingStart = u32("postingStart", source.terms.length + 1);
  const termDocs = u32("termDocs", source.terms.length);
  const pairDoc = u32("pairDoc", pairs);
  const pairSlotCount = u32("pairSlotCount", pairs);
  let p = 0;
  let last = -1;
  let termDocCount = 0;
  // Writes past the counted pairs fall outside the typed arrays (ignored) and fail the check below.
  const emit = (doc: number, packed: number): void => {
    pairDoc[p] = doc;
    pairSlotCount[p] = packed;
    p++;
    if (doc !== last) (termDocCount++, (last = doc));
  };
  for (let t = 0; t < source.terms.length; t++) {
    postingStart[t] = p;
    last = -1;
    termDocCount = 0;
    source.pairsOf(t, emit);
    termDocs[t] = termDocCount;
  }
  postingStart[source.terms.length] = p;
  if (p !== pairs) throw new CairnError("INVALID", `internal error: a lexical segment was written with ${p} posting pairs where ${pairs} were counted`);
  return out;
}

function tableSizeFor(terms: number): number {
  let size = 16;
  while (size < terms * 2) size *= 2;
  return size;
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
