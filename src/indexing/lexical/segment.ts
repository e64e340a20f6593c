/**
 * An immutable, binary lexical segment: documents (id, content hash, slot lengths), a term
 * dictionary with an on-disk hash table, and posting lists as flat typed arrays. Opening one is a
 * file read plus typed-array views — no postings are rebuilt and no strings are decoded until a
 * query asks for them — which is what makes a cold `search` at 100k entries cheap.
 *
 * Layout (little-endian, every section 4-byte aligned):
 *   "CLXS" · u32 header length · header JSON (format, tokenizer version, params, section offsets)
 *   docIdOffsets u32[N+1] · docIds utf-8 · docHashOffsets u32[N+1] · docHashes utf-8 · lengths u32[N·SLOTS]
 *   termOffsets u32[T+1] · terms utf-8 (sorted) · table u32[H] (term index + 1, open addressing, FNV-1a)
 *   postingStart u32[T+1] · termDocs u32[T] (documents per term) · pairDoc u32[P] · pairSlotCount u32[P] (count << 4 | slot)
 * A term's postings are the pairs [postingStart[t], postingStart[t+1]), ascending by document; a
 * document with the term in several slots has one consecutive pair per slot.
 */
import { CairnError } from "../../errors.js";
import type { DocTerms, FieldTf } from "./lexical-index.js";
import { LEXICAL_FIELDS, resolveParams, type LexicalParams, type LexicalParamsInput } from "./params.js";
import { TOKENIZER_VERSION } from "./tokenize.js";

const MAGIC = 0x53584c43; // "CLXS" little-endian
/** Bumped when the binary layout changes; other versions are refused (and the index rebuilt). */
export const SEGMENT_VERSION = 2;
export const SEGMENT_SLOTS = LEXICAL_FIELDS.length * 2;
const SLOT_BITS = 4;
const SLOT_MASK = (1 << SLOT_BITS) - 1;

type Sections = {
  docIdOffsets: number;
  docIds: number;
  docHashOffsets: number;
  docHashes: number;
  lengths: number;
  termOffsets: number;
  terms: number;
  table: number;
  postingStart: number;
  termDocs: number;
  pairDoc: number;
  pairSlotCount: number;
  end: number;
};

type Header = {
  format: "cairn-lexical-segment";
  version: number;
  tokenizerVersion: number;
  params: LexicalParams;
  docs: number;
  terms: number;
  pairs: number;
  tableSize: number;
  sections: Sections;
};

/** One document as a segment is built from it: id, the hash of the fields it was analyzed from, and its analysis. */
export type SegmentDoc = { id: string; hash: string; terms: ReadonlyMap<string, FieldTf>; lengths: readonly number[] };

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** FNV-1a over UTF-8 bytes. */
function fnv1a(bytes: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) {
    h ^= bytes[i]!;
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

const align4 = (n: number): number => (n + 3) & ~3;

/** A sorted term dictionary with, per term, the documents (in segment order) and slot frequencies. */
export type PostingSource = {
  /** Terms in ascending code-unit order. */
  terms: string[];
  /** For term i: the documents holding it (ascending) and their frequencies, parallel arrays. */
  postings(i: number): { docs: ArrayLike<number>; tfs: ReadonlyArray<FieldTf> };
  /** The number of (document, slot) pairs over all postings, when the source knows it (saves a pass over every posting list). */
  pairs?: number;
};

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
  return writeSegment(params, docs, { terms, postings: (i) => lists[i]! });
}

/** Write a segment from documents and a posting source over them (used to merge segments without re-analyzing). */
export function writeSegment(params: LexicalParams, docs: ReadonlyArray<Pick<SegmentDoc, "id" | "hash" | "lengths">>, source: PostingSource): Uint8Array {
  const n = docs.length;
  // UTF-8 lengths first, bytes encoded straight into the output: no array per string (a 100k-entry segment has ~10⁶ terms).
  const idLengths = docs.map((d) => Buffer.byteLength(d.id));
  const hashLengths = docs.map((d) => Buffer.byteLength(d.hash));
  const termLengths = source.terms.map((t) => Buffer.byteLength(t));
  let pairs = source.pairs ?? 0;
  if (source.pairs === undefined) for (let i = 0; i < source.terms.length; i++) for (const tf of source.postings(i).tfs) pairs += tf.length / 2;
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
  for (let t = 0; t < source.terms.length; t++) {
    postingStart[t] = p;
    const { docs: nums, tfs } = source.postings(t);
    termDocs[t] = nums.length;
    for (let i = 0; i < nums.length; i++) {
      const tf = tfs[i]!;
      for (let k = 0; k < tf.length; k += 2) {
        pairDoc[p] = nums[i]!;
        pairSlotCount[p] = ((tf[k + 1] ?? 0) << SLOT_BITS) | (tf[k] ?? 0);
        p++;
      }
    }
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

/** A read-only view over segment bytes. */
export class Segment {
  readonly params: LexicalParams;
  /** Number of documents. */
  readonly size: number;
  /** Number of distinct terms. */
  readonly termCount: number;
  readonly #bytes: Uint8Array;
  readonly #start: number;
  readonly #s: Sections;
  readonly #docIdOffsets: Uint32Array;
  readonly #docHashOffsets: Uint32Array;
  readonly #termOffsets: Uint32Array;
  readonly #table: Uint32Array;
  /** Per-slot lengths, N × SLOTS. */
  readonly lengths: Uint32Array;
  /** Pairs [postingStart[t], postingStart[t + 1]) belong to term t. */
  readonly postingStart: Uint32Array;
  /** Documents holding each term (its document frequency in this segment). */
  readonly termDocs: Uint32Array;
  readonly pairDoc: Uint32Array;
  readonly pairSlotCount: Uint32Array;
  #ids: Array<string | undefined>;
  #scratch = new Uint8Array(256);

  private constructor(bytes: Uint8Array, start: number, header: Header) {
    this.#bytes = bytes;
    this.#start = start;
    this.#s = header.sections;
    this.params = resolveParams(header.params as LexicalParamsInput);
    this.size = header.docs;
    this.termCount = header.terms;
    const u32 = (section: keyof Sections, length: number) => new Uint32Array(bytes.buffer, bytes.byteOffset + start + header.sections[section], length);
    this.#docIdOffsets = u32("docIdOffsets", header.docs + 1);
    this.#docHashOffsets = u32("docHashOffsets", header.docs + 1);
    this.lengths = u32("lengths", header.docs * SEGMENT_SLOTS);
    this.#termOffsets = u32("termOffsets", header.terms + 1);
    this.#table = u32("table", header.tableSize);
    this.postingStart = u32("postingStart", header.terms + 1);
    this.termDocs = u32("termDocs", header.terms);
    this.pairDoc = u32("pairDoc", header.pairs);
    this.pairSlotCount = u32("pairSlotCount", header.pairs);
    this.#ids = new Array<string | undefined>(header.docs);
  }

  /** Open segment bytes (e.g. a file read whole); throws CairnError INVALID when they are not a segment this version reads. */
  static open(input: Uint8Array): Segment {
    // Typed-array views need 4-byte alignment of the underlying buffer.
    const bytes = input.byteOffset % 4 === 0 ? input : input.slice();
    if (bytes.length < 8) throw invalid("it is too short");
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (view.getUint32(0, true) !== MAGIC) throw invalid("it does not start with the segment signature");
    const headerLength = view.getUint32(4, true);
    if (8 + headerLength > bytes.length) throw invalid("its header is cut off");
    let header: Header;
    try {
      header = JSON.parse(decoder.decode(bytes.subarray(8, 8 + headerLength))) as Header;
    } catch (cause) {
      throw invalid("its header is not valid JSON", cause);
    }
    if (header.format !== "cairn-lexical-segment" || header.version !== SEGMENT_VERSION) throw invalid(`it is format ${String(header.version)}, not ${SEGMENT_VERSION}`);
    if (header.tokenizerVersion !== TOKENIZER_VERSION) throw invalid(`it was built by tokenizer version ${String(header.tokenizerVersion)}`);
    const start = align4(8 + headerLength);
    const s = header.sections;
    if (!s || typeof s.end !== "number" || start + s.end !== bytes.length) throw invalid("its length does not match its header (a partial write?)");
    let segment: Segment;
    try {
      segment = new Segment(bytes, start, header);
    } catch (cause) {
      throw invalid("its sections do not fit", cause);
    }
    segment.#verify();
    return segment;
  }

  /** Cheap structural checks, so a damaged file is refused on open rather than misread later. */
  #verify(): void {
    const last = (a: Uint32Array) => a[a.length - 1] ?? 0;
    const s = this.#s;
    if (last(this.#docIdOffsets) > s.docHashOffsets - s.docIds) throw invalid("document ids overflow their section");
    if (last(this.#termOffsets) > s.table - s.terms) throw invalid("terms overflow their section");
    if (last(this.postingStart) !== this.pairDoc.length) throw invalid("posting lists do not add up");
  }

  /** Id of document `num`. */
  id(num: number): string {
    let id = this.#ids[num];
    if (id === undefined) {
      id = this.#string(this.#s.docIds, this.#docIdOffsets, num);
      this.#ids[num] = id;
    }
    return id;
  }

  /** Hash of the fields document `num` was analyzed from. */
  hash(num: number): string {
    return this.#string(this.#s.docHashes, this.#docHashOffsets, num);
  }

  /** Term `t` of the dictionary. */
  term(t: number): string {
    return this.#string(this.#s.terms, this.#termOffsets, t);
  }

  #string(section: number, offsets: Uint32Array, i: number): string {
    const base = this.#start + section;
    return decoder.decode(this.#bytes.subarray(base + offsets[i]!, base + offsets[i + 1]!));
  }

  /** Index of `term` in the dictionary, or -1. */
  lookup(term: string): number {
    if (this.termCount === 0) return -1;
    if (this.#scratch.length < term.length * 3) this.#scratch = new Uint8Array(term.length * 3);
    const { written } = encoder.encodeInto(term, this.#scratch);
    const mask = this.#table.length - 1;
    const termsAt = this.#start + this.#s.terms;
    for (let slot = fnv1a(this.#scratch, 0, written) & mask; ; slot = (slot + 1) & mask) {
      const entry = this.#table[slot]!;
      if (entry === 0) return -1;
      const t = entry - 1;
      const from = termsAt + this.#termOffsets[t]!;
      if (this.#termOffsets[t + 1]! - this.#termOffsets[t]! === written && this.#equal(from, written)) return t;
    }
  }

  #equal(from: number, length: number): boolean {
    for (let i = 0; i < length; i++) if (this.#bytes[from + i] !== this.#scratch[i]) return false;
    return true;
  }

  /** The documents holding term `t` with their frequencies (one entry per document). */
  postings(t: number): { docs: number[]; tfs: FieldTf[] } {
    const docs: number[] = [];
    const tfs: FieldTf[] = [];
    for (let p = this.postingStart[t]!, end = this.postingStart[t + 1]!; p < end; p++) {
      const num = this.pairDoc[p]!;
      const packed = this.pairSlotCount[p]!;
      if (docs[docs.length - 1] === num) tfs[tfs.length - 1]!.push(packed & SLOT_MASK, packed >>> SLOT_BITS);
      else {
        docs.push(num);
        tfs.push([packed & SLOT_MASK, packed >>> SLOT_BITS]);
      }
    }
    return { docs, tfs };
  }

  /** True when document `num` holds term `t` (binary search over the term's ascending postings). */
  holds(t: number, num: number): boolean {
    let lo = this.postingStart[t]!;
    let hi = this.postingStart[t + 1]!;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const d = this.pairDoc[mid]!;
      if (d === num) return true;
      if (d < num) lo = mid + 1;
      else hi = mid;
    }
    return false;
  }

  /** Every document's terms, rebuilt from the postings (for tests and tools; O(postings)). */
  docTerms(num: number): DocTerms {
    const terms = new Map<string, FieldTf>();
    for (let t = 0; t < this.termCount; t++) {
      for (let p = this.postingStart[t]!, end = this.postingStart[t + 1]!; p < end; p++) {
        if (this.pairDoc[p] !== num) continue;
        const packed = this.pairSlotCount[p]!;
        const tf = terms.get(this.term(t));
        if (tf) tf.push(packed & SLOT_MASK, packed >>> SLOT_BITS);
        else terms.set(this.term(t), [packed & SLOT_MASK, packed >>> SLOT_BITS]);
      }
    }
    return { terms, lengths: Array.from(this.lengths.subarray(num * SEGMENT_SLOTS, (num + 1) * SEGMENT_SLOTS)) };
  }
}

export const segmentSlotMask = SLOT_MASK;
export const segmentSlotBits = SLOT_BITS;

function invalid(reason: string, cause?: unknown): CairnError {
  return new CairnError("INVALID", `The lexical segment cannot be read: ${reason}; it will be rebuilt from the entry files`, cause === undefined ? undefined : { cause });
}
