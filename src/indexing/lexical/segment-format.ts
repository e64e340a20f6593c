/**
 * The binary layout of a lexical segment, shared by its writer (segment-write.ts) and its reader
 * (segment.ts). Little-endian, every section 4-byte aligned:
 *   "CLXS" · u32 header length · header JSON (format, tokenizer version, params, section offsets)
 *   docIdOffsets u32[N+1] · docIds utf-8 · docHashOffsets u32[N+1] · docHashes utf-8 · lengths u32[N·SLOTS]
 *   termOffsets u32[T+1] · terms utf-8 (sorted) · table u32[H] (term index + 1, open addressing, FNV-1a)
 *   postingStart u32[T+1] · termDocs u32[T] (documents per term) · pairDoc u32[P] · pairSlotCount u32[P] (count << 4 | slot)
 * A term's postings are the pairs [postingStart[t], postingStart[t+1]), ascending by document; a
 * document with the term in several slots has one consecutive pair per slot.
 */
import { CairnError } from "../../errors.js";
import { LEXICAL_FIELDS, type LexicalParams } from "./params.js";

export const MAGIC = 0x53584c43; // "CLXS" little-endian
/** Bumped when the binary layout changes; other versions are refused (and the index rebuilt). */
export const SEGMENT_VERSION = 2;
export const SEGMENT_SLOTS = LEXICAL_FIELDS.length * 2;
export const SLOT_BITS = 4;
export const SLOT_MASK = (1 << SLOT_BITS) - 1;

export type Sections = {
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

export type Header = {
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

/** FNV-1a over UTF-8 bytes. */
export function fnv1a(bytes: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) {
    h ^= bytes[i]!;
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export const align4 = (n: number): number => (n + 3) & ~3;

export function invalidSegment(reason: string, cause?: unknown): CairnError {
  return new CairnError("INVALID", `The lexical segment cannot be read: ${reason}; it will be rebuilt from the entry files`, cause === undefined ? undefined : { cause });
}
