/**
 * The catalogue as saved in a generation directory: its records file (`records.jsonl`, one encoded record
 * per line: catalogue-codec.ts) and its table (`catalogue.bin`: catalogue-table.ts). A save writes the
 * records, then the table; opening reads the table (a few hundred KB at 10k entries) and opens the records
 * file, read by position when records are asked for (catalogue-lines.ts). Records kept from the catalogue a
 * save started from are copied as saved lines, not encoded again.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { crc32 } from "node:zlib";
import { writeFileAtomic } from "../store/atomic.js";
import type { CatalogueData, CatalogueRecord } from "./catalogue.js";
import { derivedPath, encodeRecord, type CatalogueDirs } from "./catalogue-codec.js";
import { RecordLines } from "./catalogue-lines.js";
import { StoredCatalogue, statusOf, stringsOf, type Storage } from "./catalogue-store.js";
import { ARCHIVED, decodeTable, encodeTable, HAS_CODE, RACY, UNPARSED, type LexicalDebt, type Table } from "./catalogue-table.js";

export type { CatalogueDirs } from "./catalogue-codec.js";
export type { LexicalDebt } from "./catalogue-table.js";

/** The records file next to a catalogue's table. */
const RECORDS = "records.jsonl";

export type SavedCatalogue = CatalogueData & { lexical: LexicalDebt };

/** Records encoded and written per piece of the records file (a save at 100k entries never holds the whole text at once). */
const WRITE_CHUNK = 1_024;

/** Write a catalogue's records file and then its table (`file`). */
export async function writeCatalogue(file: string, data: CatalogueData, lexical: LexicalDebt, dirs: CatalogueDirs): Promise<void> {
  const cat = data instanceof StoredCatalogue ? data : StoredCatalogue.of(dirs, data);
  const table = new TableWriter(cat);
  await writeFileAtomic(path.join(path.dirname(file), RECORDS), recordBytes(cat, table));
  await writeFileAtomic(file, encodeTable(table.done(), cat.broken, lexical));
}

function* recordBytes(cat: StoredCatalogue, table: TableWriter): Generator<Buffer> {
  const lines = cat.storage?.lines;
  let at = 0;
  for (let chunk = 0; chunk < cat.size; chunk += WRITE_CHUNK) {
    // Consecutive saved lines are one run of the saved file (most records, in order): read and written as one piece.
    const piece: Buffer[] = [];
    let run: { from: number; to: number } | undefined;
    const endRun = () => {
      if (run) piece.push(lines!.range(run.from, run.to));
      run = undefined;
    };
    for (let k = chunk; k < Math.min(cat.size, chunk + WRITE_CHUNK); k++) {
      const i = cat.savedAt(k);
      if (i >= 0) {
        const span = lines!.span(i);
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
      piece.push(line);
      table.recordRow(k, record, at, crc32(line));
      at += line.length;
    }
    endRun();
    yield piece.length === 1 ? piece[0]! : Buffer.concat(piece);
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
      starts: new Float64Array(n + 1),
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

  /** Row k: a record in memory, its line at `at` with crc `crc`. */
  recordRow(k: number, record: CatalogueRecord, at: number, crc: number): void {
    const t = this.#t;
    t.ids[k] = record.id;
    t.paths[k] = record.path === derivedPath(this.#cat.dirs, record.id, record.state) ? "" : record.path;
    t.mtime[k] = record.mtimeMs;
    t.size[k] = record.size;
    t.starts[k] = at;
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
    t.starts[k] = at;
    t.crcs[k] = crc;
    t.flags[k] = s.flags[i]!;
    t.status[k] = this.#fromLabel(s.status[i]!);
    t.agents[k] = this.#fromSet("agents", s.agents[i]!);
    t.anchors[k] = this.#fromSet("anchors", s.anchors[i]!);
    t.code[k] = s.code[i]! < 0 ? -1 : this.#fromSet("code", s.code[i]!);
  }

  /** The records file ends at `size`. */
  end(size: number): void {
    this.#t.starts[this.#t.ids.length] = size;
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
 * Open a saved catalogue: its table is read and checked, its records file opened (records are read when asked for). A
 * damaged, cut or missing file makes it `corrupt` with the reason (the caller rebuilds).
 */
export async function readCatalogue(file: string, dirs: CatalogueDirs): Promise<{ kind: "ok"; saved: StoredCatalogue } | { kind: "corrupt"; reason: string }> {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    return { kind: "corrupt", reason: `the catalogue is unreadable (${(error as Error).message})` };
  }
  const decoded = decodeTable(bytes);
  if ("problem" in decoded) return { kind: "corrupt", reason: `${path.basename(file)} ${decoded.problem}` };
  const lines = RecordLines.open(path.join(path.dirname(file), RECORDS), decoded.table.starts, decoded.table.crcs);
  if ("problem" in lines) return { kind: "corrupt", reason: `the catalogue's ${lines.problem}` };
  return { kind: "ok", saved: StoredCatalogue.open(dirs, { table: decoded.table, lines }, decoded.broken, decoded.lexical) };
}
