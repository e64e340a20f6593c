/**
 * The catalogue as saved in a generation directory: one line per record (catalogue-codec.ts), then one
 * line of trailer — the checksum of the records' lines, the table of every file's id, path, state, size,
 * mtime and retrieval facets (status, agents, anchor paths, the signatures of its anchored code), the
 * files that do not parse and the lexical work still owed. Opening reads the trailer and checks the checksum; records are
 * decoded when asked for (catalogue-store.ts).
 */
import { readFileSync } from "node:fs";
import { crc32 } from "node:zlib";
import { writeFileAtomic } from "../store/atomic.js";
import type { BrokenFile, CatalogueData, CatalogueRecord } from "./catalogue.js";
import { derivedPath, encodeRecord, type CatalogueDirs } from "./catalogue-codec.js";
import { COL, HAS_CODE, RACY, ROW, StoredCatalogue, statusOf, stringsOf, UNPARSED, type LexicalDebt, type Storage } from "./catalogue-store.js";

export type { CatalogueDirs } from "./catalogue-codec.js";
export type { LexicalDebt } from "./catalogue-store.js";

const FORMAT = "cairn-catalogue";
/** Bump when the record tuple or the trailer changes. */
const VERSION = 6;

export type SavedCatalogue = CatalogueData & { lexical: LexicalDebt };

type Trailer = {
  format: typeof FORMAT;
  version: typeof VERSION;
  count: number;
  /** crc32 of every byte before the trailer. */
  crc: number;
  /** ROW values per record (catalogue-store.ts). */
  rows: Array<string | number>;
  labels: string[];
  sets: number[][];
  sources: string[];
  signatures: Array<string | number>;
  broken: BrokenFile[];
  lexical: LexicalDebt;
};

/** Records encoded and written per piece of the file. */
const WRITE_CHUNK = 1_024;

/**
 * Written in pieces of WRITE_CHUNK records: a save at 100k entries never holds the whole text at once. The saved
 * lines of a catalogue opened from a file are copied as they are, unless the record's anchored code changed since.
 */
export async function writeCatalogue(file: string, data: CatalogueData, lexical: LexicalDebt, dirs: CatalogueDirs): Promise<void> {
  await writeFileAtomic(file, catalogueBytes(data instanceof StoredCatalogue ? data : StoredCatalogue.of(dirs, data), lexical));
}

function* catalogueBytes(cat: StoredCatalogue, lexical: LexicalDebt): Generator<Buffer> {
  const store = cat.storage;
  // Saved lines number their sources as their file did: its list is kept, in order, and extended.
  const sources = new Map<string, number>((store?.sources ?? []).map((s, n) => [s, n]));
  const table = new TableWriter(sources, store);
  // Filled by index (a push of ten values per row is several times slower at 10k rows).
  const rows = new Array<string | number>(cat.size * ROW);
  let crc = 0;
  for (let at = 0; at < cat.size; at += WRITE_CHUNK) {
    // Consecutive saved lines are one run of the saved bytes (most records, in order): copied as one piece.
    const piece: Buffer[] = [];
    let run: { from: number; to: number } | undefined;
    const endRun = () => {
      if (run) piece.push(store!.text.subarray(run.from, run.to));
      run = undefined;
    };
    for (let k = at; k < Math.min(cat.size, at + WRITE_CHUNK); k++) {
      const saved = cat.savedAt(k);
      if (saved) {
        if (run?.to !== saved.from) endRun();
        run ??= { from: saved.from, to: saved.from };
        run.to = saved.to;
        table.copyRow(rows, k * ROW, saved.row);
        continue;
      }
      endRun();
      const record = cat.at(k);
      piece.push(Buffer.from(JSON.stringify(encodeRecord(record, cat.dirs, sources)) + "\n", "utf8"));
      table.recordRow(rows, k * ROW, record, cat.dirs);
    }
    endRun();
    const bytes = piece.length === 1 ? piece[0]! : Buffer.concat(piece);
    crc = crc32(bytes, crc);
    yield bytes;
  }
  const trailer: Trailer = { format: FORMAT, version: VERSION, count: cat.size, crc, rows, labels: table.labels, sets: table.sets, sources: [...sources.keys()], signatures: table.signatures, broken: cat.broken, lexical };
  yield Buffer.from(JSON.stringify(trailer) + "\n", "utf8");
}

/** The rows of a catalogue being written, with their labels, sets and signatures numbered afresh (nothing unused is carried on). */
class TableWriter {
  readonly labels: string[] = [];
  readonly sets: number[][] = [];
  readonly signatures: Array<string | number> = [];
  readonly #labels = new Map<string, number>();
  readonly #sets = new Map<string, number>();
  readonly #signatures = new Map<string, number>();
  readonly #sources: Map<string, number>;
  readonly #store: Storage | null;
  /** The saved file's label, set (per role) and signature numbers → this file's; -1 until first used. */
  readonly #from: { labels: Int32Array; agents: Int32Array; anchors: Int32Array; code: Int32Array; signatures: Int32Array };

  constructor(sources: Map<string, number>, store: Storage | null) {
    this.#sources = sources;
    this.#store = store;
    const none = (n: number) => new Int32Array(n).fill(-1);
    const sets = store?.sets.length ?? 0;
    this.#from = { labels: none(store?.labels.length ?? 0), agents: none(sets), anchors: none(sets), code: none(sets), signatures: none((store?.signatures.length ?? 0) / 4) };
  }

  #label(text: string): number {
    let n = this.#labels.get(text);
    if (n === undefined) this.#labels.set(text, (n = this.labels.push(text) - 1));
    return n;
  }

  #set(list: number[]): number {
    const key = list.join(",");
    let n = this.#sets.get(key);
    if (n === undefined) this.#sets.set(key, (n = this.sets.push(list) - 1));
    return n;
  }

  #signature(source: number, size: number, mtimeMs: number, hash: string | 0): number {
    const key = `${source}\0${size}\0${mtimeMs}\0${hash}`;
    let n = this.#signatures.get(key);
    if (n === undefined) {
      n = this.signatures.length / 4;
      this.#signatures.set(key, n);
      this.signatures.push(source, size, mtimeMs, hash);
    }
    return n;
  }

  /** The row of a record in memory, written at `to`. */
  recordRow(rows: Array<string | number>, to: number, record: CatalogueRecord, dirs: CatalogueDirs): void {
    const flags = (record.racy ? RACY : 0) | (record.unparsed ? UNPARSED : 0) | (record.code ? HAS_CODE : 0);
    const agents = this.#set(stringsOf(record.frontmatter.agents).map((a) => this.#label(a)));
    const anchors = this.#set(record.anchors.map((a) => (a.glob ? -1 - this.#label(a.path) : this.#label(a.path))));
    const code = record.code ? this.#set(record.code.sources.map((s) => this.#signature(this.#sources.get(s.path)!, s.size, s.mtimeMs, s.hash ?? 0))) : -1;
    const path = record.path === derivedPath(dirs, record.id, record.state) ? "" : record.path;
    const row = [record.id, path, record.state === "active" ? 0 : 1, record.mtimeMs, record.size, flags, this.#label(statusOf(record.frontmatter)), agents, anchors, code];
    for (let c = 0; c < ROW; c++) rows[to + c] = row[c]!;
  }

  /** The row of a saved line copied as it is (`at`: its first value in the saved rows) to `to`, its numbers translated into this file's. */
  copyRow(rows: Array<string | number>, to: number, at: number): void {
    const r = this.#store!.rows;
    for (let c = 0; c < COL.status; c++) rows[to + c] = r[at + c]!;
    rows[to + COL.status] = this.#fromLabel(r[at + COL.status] as number);
    rows[to + COL.agents] = this.#fromSet("agents", r[at + COL.agents] as number);
    rows[to + COL.anchors] = this.#fromSet("anchors", r[at + COL.anchors] as number);
    const code = r[at + COL.code] as number;
    rows[to + COL.code] = code < 0 ? -1 : this.#fromSet("code", code);
  }

  #fromLabel(n: number): number {
    const from = this.#from.labels;
    if (from[n] === -1) from[n] = this.#label(this.#store!.labels[n]!);
    return from[n]!;
  }

  #fromSet(role: "agents" | "anchors" | "code", n: number): number {
    const from = this.#from[role];
    if (from[n] === -1) {
      const list = this.#store!.sets[n]!;
      from[n] = this.#set(role === "agents" ? list.map((a) => this.#fromLabel(a)) : role === "anchors" ? list.map((a) => (a < 0 ? -1 - this.#fromLabel(-1 - a) : this.#fromLabel(a))) : list.map((sig) => this.#fromSignature(sig)));
    }
    return from[n]!;
  }

  #fromSignature(n: number): number {
    const from = this.#from.signatures;
    if (from[n] === -1) {
      const sigs = this.#store!.signatures;
      from[n] = this.#signature(sigs[n * 4] as number, sigs[n * 4 + 1] as number, sigs[n * 4 + 2] as number, sigs[n * 4 + 3] as string | 0);
    }
    return from[n]!;
  }
}

/** Open a saved catalogue (records decoded later, when asked for); a damaged one is `corrupt` with the reason (the caller rebuilds). */
export async function readCatalogue(file: string, dirs: CatalogueDirs): Promise<{ kind: "ok"; saved: StoredCatalogue } | { kind: "corrupt"; reason: string }> {
  let text: Buffer;
  try {
    // One read (the promise API reads 512 KB per thread-pool round trip: 15 of them for 7 MB at 10k entries).
    text = readFileSync(file);
  } catch (error) {
    return { kind: "corrupt", reason: `the catalogue is unreadable (${(error as Error).message})` };
  }
  const corrupt = (why: string) => ({ kind: "corrupt" as const, reason: `catalogue.json ${why}` });
  if (text.length === 0 || text[text.length - 1] !== 0x0a) return corrupt("is cut short (no trailer line)");
  const start = text.lastIndexOf(0x0a, text.length - 2) + 1;
  let trailer: Partial<Trailer>;
  try {
    trailer = JSON.parse(text.toString("utf8", start)) as Partial<Trailer>;
  } catch (error) {
    return corrupt(`has an unreadable trailer (${(error as Error).message})`);
  }
  if (typeof trailer !== "object" || trailer === null || trailer.format !== FORMAT || trailer.version !== VERSION) return corrupt("does not have the expected format or version");
  const { count, rows, labels, sets, sources, signatures, broken, lexical } = trailer;
  if (typeof count !== "number" || !Number.isInteger(count) || count < 0 || !Array.isArray(rows) || rows.length !== count * ROW) return corrupt("has a damaged table of records");
  if (!Array.isArray(sources) || !sources.every((s) => typeof s === "string") || !Array.isArray(signatures) || signatures.length % 4 || !Array.isArray(broken)) return corrupt("has a damaged trailer");
  if (!Array.isArray(labels) || !labels.every((l) => typeof l === "string") || !Array.isArray(sets) || !sets.every((s) => Array.isArray(s) && s.every(Number.isInteger))) return corrupt("has a damaged trailer");
  if (crc32(text.subarray(0, start)) !== trailer.crc) return corrupt("does not match its checksum (damaged or edited)");
  const starts = new Uint32Array(count + 1);
  let at = 0;
  for (let i = 0; i < count; i++) {
    starts[i] = at;
    const end = text.indexOf(0x0a, at);
    if (end < 0 || end >= start) return corrupt(`has ${i} record lines, not ${count}`);
    at = end + 1;
  }
  starts[count] = at;
  if (at !== start) return corrupt(`has more record lines than ${count}`);
  const valid = tableChecks(labels.length, sets, signatures.length / 4);
  for (let i = 0; i < count; i++) {
    const k = i * ROW;
    const ok =
      typeof rows[k] === "string" && rows[k] !== "" && typeof rows[k + 1] === "string" && (rows[k + 2] === 0 || rows[k + 2] === 1) && typeof rows[k + 3] === "number" && typeof rows[k + 4] === "number" && typeof rows[k + 5] === "number" &&
      valid.label(rows[k + COL.status]) && valid.agents(rows[k + COL.agents]) && valid.anchors(rows[k + COL.anchors]) && (rows[k + COL.code] === -1 || valid.code(rows[k + COL.code]));
    if (!ok) return corrupt(`has a damaged table row for record #${i + 1}`);
  }
  if (!broken.every(isBroken)) return corrupt("lists a damaged unreadable-file record");
  const debt = lexical && Array.isArray(lexical.stale) && Array.isArray(lexical.gone) ? lexical : { stale: [], gone: [] };
  return { kind: "ok", saved: StoredCatalogue.open(dirs, { file, text, starts, rows, labels, sets, sources, signatures }, broken, debt) };
}

/** Checks of the numbers a row refers to, each set checked once per role. */
function tableChecks(labels: number, sets: number[][], signatures: number) {
  const inRange = (n: unknown, max: number): n is number => Number.isInteger(n) && (n as number) >= 0 && (n as number) < max;
  const setCheck = (each: (n: number) => boolean) => {
    const checked = new Map<number, boolean>();
    return (n: unknown): boolean => {
      if (!inRange(n, sets.length)) return false;
      let ok = checked.get(n);
      if (ok === undefined) checked.set(n, (ok = sets[n]!.every(each)));
      return ok;
    };
  };
  return {
    label: (n: unknown) => inRange(n, labels),
    agents: setCheck((n) => inRange(n, labels)),
    anchors: setCheck((n) => inRange(n < 0 ? -1 - n : n, labels)),
    code: setCheck((n) => inRange(n, signatures)),
  };
}

function isBroken(value: unknown): value is BrokenFile {
  if (typeof value !== "object" || value === null) return false;
  const b = value as Record<string, unknown>;
  return typeof b.path === "string" && Array.isArray(b.problems) && typeof b.mtimeMs === "number" && typeof b.size === "number";
}
