/**
 * An immutable, binary lexical segment (layout: segment-format.ts; written by segment-write.ts):
 * documents (id, content hash, slot lengths), a term dictionary with an on-disk hash table, and
 * posting lists as flat typed arrays. Opening one reads its header; each section is read when first
 * needed and a term's postings when a query asks for that term — no postings are rebuilt and no
 * strings are decoded until asked for, which is what makes a cold `search` cheap.
 */
import { CairnError } from "../../errors.js";
import type { DocTerms, FieldTf } from "./lexical-index.js";
import { resolveParams, type LexicalParams, type LexicalParamsInput } from "./params.js";
import { align4, fnv1a, invalidSegment, MAGIC, SEGMENT_SLOTS, SEGMENT_VERSION, SLOT_BITS, SLOT_MASK, type Header, type Sections } from "./segment-format.js";
import { fileSource, memorySource, type SegmentSource } from "./segment-source.js";
import { TOKENIZER_VERSION } from "./tokenize.js";

export { buildSegment, writeSegment, type PostingSource, type SegmentDoc } from "./segment-write.js";
export { SEGMENT_SLOTS, SEGMENT_VERSION } from "./segment-format.js";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Sections in file order: a section ends where the next begins. */
const ORDER: ReadonlyArray<keyof Sections> = ["docIdOffsets", "docIds", "docHashOffsets", "docHashes", "lengths", "termOffsets", "terms", "table", "postingStart", "termDocs", "pairDoc", "pairSlotCount", "end"];

/** A term's posting pairs: documents (ascending, repeated once per slot) and `count << 4 | slot`. */
export type TermPairs = { docs: Uint32Array; slotCounts: Uint32Array };

/** A read-only segment over a byte source. */
export class Segment {
  readonly params: LexicalParams;
  /** Number of documents. */
  readonly size: number;
  /** Number of distinct terms. */
  readonly termCount: number;
  readonly #source: SegmentSource;
  readonly #start: number;
  readonly #header: Header;
  readonly #s: Sections;
  readonly #loaded = new Map<keyof Sections, Uint8Array>();
  /** Postings read for one term at a time (a file source): a query reads only its terms'. */
  readonly #pairs = new Map<number, TermPairs>();
  #ids: Array<string | undefined>;
  #scratch = new Uint8Array(256);

  private constructor(source: SegmentSource, start: number, header: Header) {
    this.#source = source;
    this.#start = start;
    this.#header = header;
    this.#s = header.sections;
    this.params = resolveParams(header.params as LexicalParamsInput);
    this.size = header.docs;
    this.termCount = header.terms;
    this.#ids = new Array<string | undefined>(header.docs);
  }

  /** Open segment bytes (e.g. just built); throws CairnError INVALID when they are not a segment this version reads. */
  static open(input: Uint8Array): Segment {
    return Segment.#open(memorySource(input));
  }

  /**
   * Open a saved segment file by its descriptor, reading only its header now (sections are read when needed).
   * The segment owns the descriptor: `close()` closes it (with `closeFd`), as does a failure to open.
   */
  static openFile(fd: number, closeFd: (fd: number) => void): Segment {
    const source = fileSource(fd, closeFd);
    try {
      return Segment.#open(source);
    } catch (error) {
      source.close();
      throw error;
    }
  }

  static #open(source: SegmentSource): Segment {
    if (source.size < 8) throw invalidSegment("it is too short");
    const head = source.read(0, 8);
    const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
    if (view.getUint32(0, true) !== MAGIC) throw invalidSegment("it does not start with the segment signature");
    const headerLength = view.getUint32(4, true);
    if (8 + headerLength > source.size) throw invalidSegment("its header is cut off");
    let header: Header;
    try {
      header = JSON.parse(decoder.decode(source.read(8, headerLength))) as Header;
    } catch (cause) {
      throw invalidSegment("its header is not valid JSON", cause);
    }
    if (header.format !== "cairn-lexical-segment" || header.version !== SEGMENT_VERSION) throw invalidSegment(`it is format ${String(header.version)}, not ${SEGMENT_VERSION}`);
    if (header.tokenizerVersion !== TOKENIZER_VERSION) throw invalidSegment(`it was built by tokenizer version ${String(header.tokenizerVersion)}`);
    const start = align4(8 + headerLength);
    const s = header.sections;
    if (!s || typeof s.end !== "number" || start + s.end !== source.size) throw invalidSegment("its length does not match its header (a partial write?)");
    for (let i = 1; i < ORDER.length; i++) {
      const at = s[ORDER[i - 1]!];
      if (typeof at !== "number" || at % 4 !== 0 || at > s[ORDER[i]!]) throw invalidSegment("its sections do not fit");
    }
    const fits = (section: keyof Sections, count: number) => s[section] + 4 * count <= s[ORDER[ORDER.indexOf(section) + 1]!];
    if (![fits("docIdOffsets", header.docs + 1), fits("docHashOffsets", header.docs + 1), fits("lengths", header.docs * SEGMENT_SLOTS), fits("termOffsets", header.terms + 1), fits("table", header.tableSize), fits("postingStart", header.terms + 1), fits("pairDoc", header.pairs), fits("pairSlotCount", header.pairs)].every(Boolean)) {
      throw invalidSegment("its sections do not fit");
    }
    const segment = new Segment(source, start, header);
    segment.#verify();
    return segment;
  }

  /** Cheap structural checks (the last offset of each table), so a damaged file is refused on open rather than misread later. */
  #verify(): void {
    const s = this.#s;
    const h = this.#header;
    if (this.#u32At("docIdOffsets", h.docs) > s.docHashOffsets - s.docIds) throw invalidSegment("document ids overflow their section");
    if (this.#u32At("termOffsets", h.terms) > s.table - s.terms) throw invalidSegment("terms overflow their section");
    if (this.#u32At("postingStart", h.terms) !== h.pairs) throw invalidSegment("posting lists do not add up");
  }

  #u32At(section: keyof Sections, index: number): number {
    const bytes = this.#source.read(this.#start + this.#s[section] + 4 * index, 4);
    return new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true);
  }

  /** A whole section, read on first use. */
  #bytes(section: keyof Sections): Uint8Array {
    let bytes = this.#loaded.get(section);
    if (!bytes) {
      const from = this.#s[section];
      bytes = this.#source.read(this.#start + from, this.#s[ORDER[ORDER.indexOf(section) + 1]!] - from);
      this.#loaded.set(section, bytes);
    }
    return bytes;
  }

  /** A section of u32s (its length from the header), read on first use. */
  #u32(section: keyof Sections): Uint32Array {
    let view = this.#views.get(section);
    if (!view) {
      const bytes = this.#bytes(section);
      view = new Uint32Array(bytes.buffer, bytes.byteOffset, this.#count(section));
      this.#views.set(section, view);
    }
    return view;
  }

  readonly #views = new Map<keyof Sections, Uint32Array>();

  #count(section: keyof Sections): number {
    const h = this.#header;
    switch (section) {
      case "docIdOffsets":
      case "docHashOffsets":
        return h.docs + 1;
      case "lengths":
        return h.docs * SEGMENT_SLOTS;
      case "termOffsets":
      case "postingStart":
        return h.terms + 1;
      case "termDocs":
        return h.terms;
      case "table":
        return h.tableSize;
      case "pairDoc":
      case "pairSlotCount":
        return h.pairs;
      default:
        throw new CairnError("INVALID", `internal error: ${section} is not a section of numbers`);
    }
  }

  /** Per-slot lengths, N × SLOTS. */
  get lengths(): Uint32Array {
    return this.#u32("lengths");
  }

  /** Pairs [postingStart[t], postingStart[t + 1]) belong to term t. */
  get postingStart(): Uint32Array {
    return this.#u32("postingStart");
  }

  /** Documents holding each term (its document frequency in this segment). */
  get termDocs(): Uint32Array {
    return this.#u32("termDocs");
  }

  #all: TermPairs | undefined;

  /** Every posting pair of the segment (read whole: compaction and full scans). */
  allPairs(): TermPairs {
    return (this.#all ??= { docs: this.#u32("pairDoc"), slotCounts: this.#u32("pairSlotCount") });
  }

  /** The posting pairs of term `t` (read from the file on first use, or views of the whole lists once read). */
  pairs(t: number): TermPairs {
    const from = this.postingStart[t]!;
    const to = this.postingStart[t + 1]!;
    if (this.#all) return { docs: this.#all.docs.subarray(from, to), slotCounts: this.#all.slotCounts.subarray(from, to) };
    let pairs = this.#pairs.get(t);
    if (!pairs) {
      const read = (section: "pairDoc" | "pairSlotCount") => {
        const bytes = this.#source.read(this.#start + this.#s[section] + 4 * from, 4 * (to - from));
        return new Uint32Array(bytes.buffer, bytes.byteOffset, to - from);
      };
      pairs = { docs: read("pairDoc"), slotCounts: read("pairSlotCount") };
      this.#pairs.set(t, pairs);
    }
    return pairs;
  }

  /** Release the file this segment reads (none for bytes in memory). */
  close(): void {
    this.#source.close();
  }

  /** Id of document `num`. */
  id(num: number): string {
    let id = this.#ids[num];
    if (id === undefined) {
      id = this.#string("docIds", "docIdOffsets", num);
      this.#ids[num] = id;
    }
    return id;
  }

  /** Every document's id, in order (one decode of the section when it is ASCII, as ids usually are). */
  allIds(): string[] {
    const bytes = this.#bytes("docIds");
    const offsets = this.#u32("docIdOffsets");
    const text = decoder.decode(bytes.subarray(0, offsets[this.size]!));
    const ascii = text.length === offsets[this.size];
    for (let num = 0; num < this.size; num++) this.#ids[num] ??= ascii ? text.slice(offsets[num]!, offsets[num + 1]!) : this.id(num);
    return this.#ids as string[];
  }

  /** Hash of the fields document `num` was analyzed from. */
  hash(num: number): string {
    return this.#string("docHashes", "docHashOffsets", num);
  }

  /** Term `t` of the dictionary. */
  term(t: number): string {
    return this.#string("terms", "termOffsets", t);
  }

  #string(section: keyof Sections, offsetsSection: keyof Sections, i: number): string {
    const offsets = this.#u32(offsetsSection);
    return decoder.decode(this.#bytes(section).subarray(offsets[i]!, offsets[i + 1]!));
  }

  /** Index of `term` in the dictionary, or -1. */
  lookup(term: string): number {
    if (this.termCount === 0) return -1;
    if (this.#scratch.length < term.length * 3) this.#scratch = new Uint8Array(term.length * 3);
    const { written } = encoder.encodeInto(term, this.#scratch);
    const table = this.#u32("table");
    const offsets = this.#u32("termOffsets");
    const terms = this.#bytes("terms");
    const mask = table.length - 1;
    for (let slot = fnv1a(this.#scratch, 0, written) & mask; ; slot = (slot + 1) & mask) {
      const entry = table[slot]!;
      if (entry === 0) return -1;
      const t = entry - 1;
      const from = offsets[t]!;
      if (offsets[t + 1]! - from === written && this.#equal(terms, from, written)) return t;
    }
  }

  #equal(bytes: Uint8Array, from: number, length: number): boolean {
    for (let i = 0; i < length; i++) if (bytes[from + i] !== this.#scratch[i]) return false;
    return true;
  }

  /** The documents holding term `t` with their frequencies (one entry per document). */
  postings(t: number): { docs: number[]; tfs: FieldTf[] } {
    const docs: number[] = [];
    const tfs: FieldTf[] = [];
    const pairs = this.pairs(t);
    for (let p = 0; p < pairs.docs.length; p++) {
      const num = pairs.docs[p]!;
      const packed = pairs.slotCounts[p]!;
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
    const { docs } = this.pairs(t);
    let lo = 0;
    let hi = docs.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const d = docs[mid]!;
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
      const pairs = this.pairs(t);
      for (let p = 0; p < pairs.docs.length; p++) {
        if (pairs.docs[p] !== num) continue;
        const packed = pairs.slotCounts[p]!;
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
