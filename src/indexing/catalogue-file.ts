/**
 * The catalogue as saved: its table (`catalogue.bin` in a generation directory: catalogue-table.ts) and a records
 * file (`.cairn/records/…`, one encoded record per line: catalogue-codec.ts) that generations share. A save appends
 * the lines of new and changed records to the records file the catalogue was read from, and writes a new table;
 * once fewer than half of that file's bytes are lines in use (or another process saved meanwhile), it writes a new,
 * compact records file instead. Opening reads the table (a few hundred KB at 10k entries) and opens the records
 * file, read by position when records are asked for (catalogue-lines.ts).
 */
import { closeSync, fstatSync, openSync, readFileSync, writeSync, fsyncSync } from "node:fs";
import path from "node:path";
import { crc32 } from "node:zlib";
import { CairnError } from "../errors.js";
import { writeFileAtomic } from "../store/atomic.js";
import type { CatalogueData, CatalogueRecord } from "./catalogue.js";
import { derivedPath, encodeRecord, type CatalogueDirs } from "./catalogue-codec.js";
import { RecordLines } from "./catalogue-lines.js";
import { StoredCatalogue, statusOf, stringsOf, type Storage } from "./catalogue-store.js";
import { ARCHIVED, decodeTable, encodeTable, HAS_CODE, RACY, UNPARSED, type LexicalDebt, type Table } from "./catalogue-table.js";

export type { CatalogueDirs } from "./catalogue-codec.js";
export type { LexicalDebt } from "./catalogue-table.js";

export type SavedCatalogue = CatalogueData & { lexical: LexicalDebt };

/** Where a save puts records: appended to `current` (the saved index's records file) when the catalogue was read from it, else in a new file `fresh`. */
export type RecordsTarget = { current: string | null; fresh: string };

/** Records encoded and written per piece of the records file (a save at 100k entries never holds the whole text at once). */
const WRITE_CHUNK = 1_024;

/**
 * Write a catalogue's records (appended, or a new file) and then its table (`file`); returns the records file it wrote
 * to and the saved catalogue as stored there (row k is position k), opened.
 */
export async function writeCatalogue(file: string, target: RecordsTarget, data: CatalogueData, lexical: LexicalDebt, dirs: CatalogueDirs): Promise<{ records: string; storage: Storage }> {
  const cat = data instanceof StoredCatalogue ? data : StoredCatalogue.of(dirs, data);
  const table = new TableWriter(cat);
  const lines = cat.storage?.lines;
  // Bytes of the current file still in use after this save: below half of it, a new compact file is written.
  let used = 0;
  for (let k = 0; k < cat.size; k++) {
    const i = cat.savedAt(k);
    if (i >= 0) used += lines!.span(i).to - lines!.span(i).from;
  }
  let records: string;
  if (lines && target.current !== null && lines.file === target.current && used * 2 >= lines.size) {
    records = target.current;
    appendRecords(records, (at) => recordBytes(cat, table, at, false));
  } else {
    records = target.fresh;
    table.fresh();
    await writeFileAtomic(records, recordBytes(cat, table, 0, true));
  }
  const written = table.done();
  await writeFileAtomic(file, encodeTable(written, cat.broken, lexical));
  const opened = RecordLines.open(records, written);
  if ("problem" in opened) throw new CairnError("IO", `could not open the records file just written (${opened.problem}): ${records}`);
  return { records, storage: { table: written, lines: opened } };
}

/** Append the lines `bytes(at)` gives (`at`: where they start) to the end of a records file, synced before the table that uses them is written. */
function appendRecords(file: string, bytes: (at: number) => Iterable<Buffer>): void {
  // One writer at a time holds the index lock; a save that died after appending left lines no table uses (harmless).
  const fd = openSync(file, "a");
  try {
    for (const piece of bytes(fstatSync(fd).size)) for (let done = 0; done < piece.length; ) done += writeSync(fd, piece, done);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * The records file's bytes from `at`: with `copy`, every record (runs of saved lines copied as they are); without,
 * only the lines of records in memory (the saved ones stay where they are).
 */
function* recordBytes(cat: StoredCatalogue, table: TableWriter, start: number, copy: boolean): Generator<Buffer> {
  const lines = cat.storage?.lines;
  let at = start;
  for (let chunk = 0; chunk < cat.size; chunk += WRITE_CHUNK) {
    // Consecutive saved lines are one run of the saved file (most records, in order): read and written as one piece;
    // consecutive new lines are joined into one.
    const piece: Buffer[] = [];
    let fresh: Buffer[] = [];
    let run: { from: number; to: number } | undefined;
    const endRun = () => {
      if (run) piece.push(lines!.range(run.from, run.to));
      run = undefined;
    };
    const endFresh = () => {
      if (fresh.length) piece.push(fresh.length === 1 ? fresh[0]! : Buffer.concat(fresh));
      fresh = [];
    };
    for (let k = chunk; k < Math.min(cat.size, chunk + WRITE_CHUNK); k++) {
      const i = cat.savedAt(k);
      if (i >= 0) {
        const span = lines!.span(i);
        if (!copy) {
          table.copyRow(k, i, span.from, lines!.crcOf(i));
          continue;
        }
        endFresh();
        if (run?.to !== span.from) endRun();
        run ??= { from: span.from, to: span.from };
        run.to = span.to;
        table.copyRow(k, i, at, lines!.crcOf(i));
        at += span.to - span.from;
        continue;
      }
      endRun();
      const record = cat.at(k);
      const line = Buffer.from(JSON.stringify(encodeRecord(record, cat.dirs, table.sources)) + "\n", "utf8");
      fresh.push(line);
      table.recordRow(k, record, at, line.length, crc32(line));
      at += line.length;
    }
    endRun();
    endFresh();
    // Written piece by piece: a run of saved lines is not copied once more into one buffer.
    for (const bytes of piece) {
      if (copy) table.written(bytes);
      yield bytes;
    }
  }
  table.end(at);
}

/** The table of a catalogue being written, with its labels, sets and signatures numbered afresh (nothing unused is carried on). */
class TableWriter {
  readonly #t: Table;
  readonly #cat: StoredCatalogue;
  readonly #store: Storage | null;
  /** Source path → number: a saved catalogue's list is kept, in order (its lines refer to it), and extended. */
  readonly sources: Map<string, number>;
  readonly #labels = new Map<string, number>();
  readonly #sets = new Map<string, number>();
  readonly #signatures = new Map<string, number>();
  /** The saved table's label, set (per role) and signature numbers → this one's; -1 until first used. */
  readonly #from: { labels: Int32Array; agents: Int32Array; anchors: Int32Array; code: Int32Array; signatures: Int32Array };

  constructor(cat: StoredCatalogue) {
    const n = cat.size;
    this.#cat = cat;
    this.#store = cat.storage;
    const saved = this.#store?.table;
    this.sources = new Map((saved?.sources ?? []).map((s, i) => [s, i]));
    const none = (count: number) => new Int32Array(count).fill(-1);
    const sets = saved?.sets.length ?? 0;
    this.#from = { labels: none(saved?.labels.length ?? 0), agents: none(sets), anchors: none(sets), code: none(sets), signatures: none((saved?.signatures.length ?? 0) / 4) };
    const i32 = () => new Int32Array(n);
    this.#t = {
      ids: new Array<string>(n),
      paths: new Array<string>(n),
      mtime: new Float64Array(n),
      size: new Float64Array(n),
      offsets: new Float64Array(n),
      lengths: new Uint32Array(n),
      recordsSize: 0,
      compact: cat.storage?.table.compact ?? [0, 0],
      crcs: new Uint32Array(n),
      flags: new Uint32Array(n),
      status: i32(),
      agents: i32(),
      anchors: i32(),
      code: i32(),
      labels: [],
      sets: [],
      sources: [],
      signatures: [],
    };
  }

  #label(text: string): number {
    let n = this.#labels.get(text);
    if (n === undefined) this.#labels.set(text, (n = this.#t.labels.push(text) - 1));
    return n;
  }

  #set(list: number[]): number {
    const key = list.join(",");
    let n = this.#sets.get(key);
    if (n === undefined) this.#sets.set(key, (n = this.#t.sets.push(list) - 1));
    return n;
  }

  #signature(source: number, size: number, mtimeMs: number, hash: string | 0): number {
    const key = `${source}\0${size}\0${mtimeMs}\0${hash}`;
    let n = this.#signatures.get(key);
    if (n === undefined) {
      n = this.#t.signatures.length / 4;
      this.#signatures.set(key, n);
      this.#t.signatures.push(source, size, mtimeMs, hash);
    }
    return n;
  }

  /** Row k: a record in memory, its line at `at` (`length` bytes) with crc `crc`. */
  recordRow(k: number, record: CatalogueRecord, at: number, length: number, crc: number): void {
    const t = this.#t;
    t.ids[k] = record.id;
    t.paths[k] = record.path === derivedPath(this.#cat.dirs, record.id, record.state) ? "" : record.path;
    t.mtime[k] = record.mtimeMs;
    t.size[k] = record.size;
    t.offsets[k] = at;
    t.lengths[k] = length;
    t.crcs[k] = crc;
    t.flags[k] = (record.racy ? RACY : 0) | (record.unparsed ? UNPARSED : 0) | (record.code ? HAS_CODE : 0) | (record.state === "archived" ? ARCHIVED : 0);
    t.status[k] = this.#label(statusOf(record.frontmatter));
    t.agents[k] = this.#set(stringsOf(record.frontmatter.agents).map((a) => this.#label(a)));
    t.anchors[k] = this.#set(record.anchors.map((a) => (a.glob ? -1 - this.#label(a.path) : this.#label(a.path))));
    t.code[k] = record.code ? this.#set(record.code.sources.map((s) => this.#signature(this.sources.get(s.path)!, s.size, s.mtimeMs, s.hash ?? 0))) : -1;
  }

  /** Row k: saved row i copied (its line now at `at`), its numbers translated into this table's. */
  copyRow(k: number, i: number, at: number, crc: number): void {
    const t = this.#t;
    const s = this.#store!.table;
    t.ids[k] = s.ids[i]!;
    t.paths[k] = s.paths[i]!;
    t.mtime[k] = s.mtime[i]!;
    t.size[k] = s.size[i]!;
    t.offsets[k] = at;
    t.lengths[k] = s.lengths[i]!;
    t.crcs[k] = crc;
    t.flags[k] = s.flags[i]!;
    t.status[k] = this.#fromLabel(s.status[i]!);
    t.agents[k] = this.#fromSet("agents", s.agents[i]!);
    t.anchors[k] = this.#fromSet("anchors", s.anchors[i]!);
    t.code[k] = s.code[i]! < 0 ? -1 : this.#fromSet("code", s.code[i]!);
  }

  /** The records file ends at `size`. */
  end(size: number): void {
    this.#t.recordsSize = size;
  }

  /** A new records file is written whole: its bytes are the compact part, checked with one crc when read whole. */
  fresh(): void {
    this.#t.compact = [0, 0];
  }

  /** Bytes written to a new records file, in order. */
  written(bytes: Buffer): void {
    this.#t.compact = [this.#t.compact[0] + bytes.length, crc32(bytes, this.#t.compact[1])];
  }

  done(): Table {
    this.#t.sources = [...this.sources.keys()];
    return this.#t;
  }

  #fromLabel(n: number): number {
    const from = this.#from.labels;
    if (from[n] === -1) from[n] = this.#label(this.#store!.table.labels[n]!);
    return from[n]!;
  }

  #fromSet(role: "agents" | "anchors" | "code", n: number): number {
    const from = this.#from[role];
    if (from[n] === -1) {
      const list = this.#store!.table.sets[n]!;
      from[n] = this.#set(role === "agents" ? list.map((a) => this.#fromLabel(a)) : role === "anchors" ? list.map((a) => (a < 0 ? -1 - this.#fromLabel(-1 - a) : this.#fromLabel(a))) : list.map((sig) => this.#fromSignature(sig)));
    }
    return from[n]!;
  }

  #fromSignature(n: number): number {
    const from = this.#from.signatures;
    if (from[n] === -1) {
      const sigs = this.#store!.table.signatures;
      from[n] = this.#signature(sigs[n * 4] as number, sigs[n * 4 + 1] as number, sigs[n * 4 + 2] as number, sigs[n * 4 + 3] as string | 0);
    }
    return from[n]!;
  }
}

/**
 * Open a saved catalogue: its table (`file`) is read and checked, its records file (`records`) opened (records are
 * read when asked for). A damaged, cut or missing file makes it `corrupt` with the reason (the caller rebuilds).
 */
export async function readCatalogue(file: string, records: string, dirs: CatalogueDirs): Promise<{ kind: "ok"; saved: StoredCatalogue } | { kind: "corrupt"; reason: string }> {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    return { kind: "corrupt", reason: `the catalogue is unreadable (${(error as Error).message})` };
  }
  const decoded = decodeTable(bytes);
  if ("problem" in decoded) return { kind: "corrupt", reason: `${path.basename(file)} ${decoded.problem}` };
  const lines = RecordLines.open(records, decoded.table);
  if ("problem" in lines) return { kind: "corrupt", reason: `the catalogue's ${lines.problem}` };
  return { kind: "ok", saved: StoredCatalogue.open(dirs, { table: decoded.table, lines }, decoded.broken, decoded.lexical) };
}
