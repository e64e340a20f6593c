/**
 * The table of a saved catalogue (its `catalogue.bin`): per record, what a refresh compares and what
 * retrieval filters on, as typed columns — nothing to parse per record, nothing for the garbage
 * collector to move — plus the strings and sets they refer to. Layout (little-endian):
 *   "CCAT" · u32 version · u32 header length · u32 crc32 of everything after these 16 bytes
 *   header JSON { count, recordsSize, compact: [size, crc], ids, paths ("" for `<dir>/<id>.md`), labels, sets, sources, signatures, broken, lexical }
 *   padding to 8 · f64 mtimeMs[N] · f64 size[N] · f64 line offset[N] (in the records file) · u32 line length[N] · u32 line crc[N]
 *   · u32 flags[N] · i32 status[N] (a label) · i32 agents[N] (a set of labels) · i32 anchors[N] (a set of labels,
 *   -1 - label for a glob) · i32 code[N] (a set of signatures, -1 without anchored code)
 */
import { crc32 } from "node:zlib";
import type { BrokenFile } from "./catalogue.js";

/** Ids whose lexical document must be re-analyzed from their file (`stale`) or dropped (`gone`) when the lexical index is next loaded. */
export type LexicalDebt = { stale: string[]; gone: string[] };

export const RACY = 1;
export const UNPARSED = 2;
export const HAS_CODE = 4;
export const ARCHIVED = 8;

export type Table = {
  ids: string[];
  paths: string[];
  mtime: Float64Array;
  size: Float64Array;
  /** Record i's line lies at offsets[i] in the records file, lengths[i] bytes with its "\n" (lines are appended: not in order). */
  offsets: Float64Array;
  lengths: Uint32Array;
  /** The records file's size when the table was written (lines appended later belong to later tables). */
  recordsSize: number;
  /** The records file's first bytes as its last full write wrote them, and their crc32: checked in one go when the file is read whole (only lines appended since are checked one by one). */
  compact: [size: number, crc: number];
  crcs: Uint32Array;
  flags: Uint32Array;
  status: Int32Array;
  agents: Int32Array;
  anchors: Int32Array;
  code: Int32Array;
  /** Strings the columns refer to: statuses, agent names, anchor paths. */
  labels: string[];
  /** Lists of numbers the columns refer to: agents (labels), anchors (labels, -1 - label for a glob), signatures. */
  sets: number[][];
  sources: string[];
  /** Distinct [source number, size, mtimeMs, hash|0] of the records' anchored code. */
  signatures: Array<string | number>;
};

const MAGIC = 0x54414343; // "CCAT" little-endian
/** Bump when the table or the record tuple changes (older indexes are rebuilt). */
export const TABLE_VERSION = 9;

type Header = { count: number; recordsSize: number; compact: [number, number]; ids: string[]; paths: string[]; labels: string[]; sets: number[][]; sources: string[]; signatures: Array<string | number>; broken: BrokenFile[]; lexical: LexicalDebt };

const align8 = (n: number) => (n + 7) & ~7;

/** Column lengths in elements, in file order. */
function columns(n: number) {
  return [
    ["mtime", Float64Array, n],
    ["size", Float64Array, n],
    ["offsets", Float64Array, n],
    ["lengths", Uint32Array, n],
    ["crcs", Uint32Array, n],
    ["flags", Uint32Array, n],
    ["status", Int32Array, n],
    ["agents", Int32Array, n],
    ["anchors", Int32Array, n],
    ["code", Int32Array, n],
  ] as const;
}

export function encodeTable(table: Table, broken: BrokenFile[], lexical: LexicalDebt): Buffer {
  const n = table.ids.length;
  const header: Header = { count: n, recordsSize: table.recordsSize, compact: table.compact, ids: table.ids, paths: table.paths, labels: table.labels, sets: table.sets, sources: table.sources, signatures: table.signatures, broken, lexical };
  const json = Buffer.from(JSON.stringify(header), "utf8");
  const body = align8(16 + json.length);
  const cols = columns(n);
  const size = cols.reduce((at, [, type, length]) => at + type.BYTES_PER_ELEMENT * length, body);
  const out = Buffer.alloc(align8(size));
  out.writeUInt32LE(MAGIC, 0);
  out.writeUInt32LE(TABLE_VERSION, 4);
  out.writeUInt32LE(json.length, 8);
  json.copy(out, 16);
  let at = body;
  for (const [name, type, length] of cols) {
    new type(out.buffer, out.byteOffset + at, length).set(table[name]);
    at += type.BYTES_PER_ELEMENT * length;
  }
  out.writeUInt32LE(crc32(out.subarray(16)), 12);
  return out;
}

/** The table, broken files and lexical debt of a table file's bytes; `problem` when they are not a whole, valid table. */
export function decodeTable(input: Buffer): { table: Table; broken: BrokenFile[]; lexical: LexicalDebt } | { problem: string } {
  if (input.length < 16 || input.readUInt32LE(0) !== MAGIC || input.readUInt32LE(4) !== TABLE_VERSION) return { problem: "does not have the expected format or version" };
  // Typed-array views need the columns aligned in memory.
  const bytes = input.byteOffset % 8 === 0 ? input : Buffer.from(input);
  const jsonLength = bytes.readUInt32LE(8);
  if (16 + jsonLength > bytes.length) return { problem: "is cut short" };
  if (crc32(bytes.subarray(16)) !== bytes.readUInt32LE(12)) return { problem: "does not match its checksum (damaged or edited)" };
  let header: Partial<Header>;
  try {
    header = JSON.parse(bytes.toString("utf8", 16, 16 + jsonLength)) as Partial<Header>;
  } catch (error) {
    return { problem: `has an unreadable header (${(error as Error).message})` };
  }
  const { count: n, recordsSize, compact, ids, paths, labels, sets, sources, signatures, broken, lexical } = header;
  const validCompact = Array.isArray(compact) && compact.length === 2 && compact.every(Number.isInteger) && compact[0] <= (recordsSize ?? -1);
  if (typeof n !== "number" || !Number.isInteger(n) || n < 0 || typeof recordsSize !== "number" || !validCompact || !Array.isArray(ids) || ids.length !== n || !Array.isArray(paths) || paths.length !== n) return { problem: "has a damaged table of records" };
  if (!Array.isArray(labels) || !labels.every((l) => typeof l === "string") || !Array.isArray(sets) || !sets.every((s) => Array.isArray(s) && s.every(Number.isInteger))) return { problem: "has a damaged header" };
  if (!Array.isArray(sources) || !sources.every((s) => typeof s === "string") || !Array.isArray(signatures) || signatures.length % 4 || !Array.isArray(broken) || !broken.every(isBroken)) return { problem: "has a damaged header" };
  const table = { recordsSize, compact, ids, paths, labels, sets, sources, signatures } as Table;
  let at = align8(16 + jsonLength);
  for (const [name, type, length] of columns(n)) {
    if (at + type.BYTES_PER_ELEMENT * length > bytes.length) return { problem: "is cut short" };
    (table as Record<string, unknown>)[name] = new type(bytes.buffer as ArrayBuffer, bytes.byteOffset + at, length);
    at += type.BYTES_PER_ELEMENT * length;
  }
  const row = rowCheck(table);
  for (let i = 0; i < n; i++) if (!row(i)) return { problem: `has a damaged table row for record #${i + 1}` };
  const debt = lexical && Array.isArray(lexical.stale) && Array.isArray(lexical.gone) ? lexical : { stale: [], gone: [] };
  return { table, broken, lexical: debt };
}

/** A check of row i: its strings, its line's place, and the numbers it refers to (each set checked once per role). */
function rowCheck(t: Table): (i: number) => boolean {
  const inRange = (n: number, max: number) => Number.isInteger(n) && n >= 0 && n < max;
  const setCheck = (each: (n: number) => boolean) => {
    const checked = new Map<number, boolean>();
    return (n: number): boolean => {
      if (!inRange(n, t.sets.length)) return false;
      let ok = checked.get(n);
      if (ok === undefined) checked.set(n, (ok = t.sets[n]!.every(each)));
      return ok;
    };
  };
  const agents = setCheck((n) => inRange(n, t.labels.length));
  const anchors = setCheck((n) => inRange(n < 0 ? -1 - n : n, t.labels.length));
  const code = setCheck((n) => inRange(n, t.signatures.length / 4));
  return (i) =>
    typeof t.ids[i] === "string" && t.ids[i] !== "" && typeof t.paths[i] === "string" && t.lengths[i]! > 0 && t.offsets[i]! + t.lengths[i]! <= t.recordsSize &&
    inRange(t.status[i]!, t.labels.length) && agents(t.agents[i]!) && anchors(t.anchors[i]!) && (t.code[i] === -1 || code(t.code[i]!));
}

function isBroken(value: unknown): value is BrokenFile {
  if (typeof value !== "object" || value === null) return false;
  const b = value as Record<string, unknown>;
  return typeof b.path === "string" && Array.isArray(b.problems) && typeof b.mtimeMs === "number" && typeof b.size === "number";
}
