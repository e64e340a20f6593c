/**
 * A saved catalogue as opened: its records stay encoded (one line each of the file's bytes) and are
 * decoded one at a time when asked for; a table of every file's id, path, state, size and mtime
 * tells a refresh that nothing changed without decoding a single record. `search`, `show`,
 * `confirm` and `inject` touch a few records of 10k; `status` and `check` ask for all of them
 * (`records`), decoded once.
 */
import { signatureOf } from "../anchors/signature.js";
import { CairnError } from "../errors.js";
import { COLLECT_FROM_ENTRIES, collectGarbage } from "../store/gc.js";
import type { BrokenFile, CatalogueData, CatalogueRecord } from "./catalogue.js";
import { decodeRecord, derivedPath, type CatalogueDirs } from "./catalogue-codec.js";

/** Ids whose lexical document must be re-analyzed from their file (`stale`) or dropped (`gone`) when the lexical index is next loaded. */
export type LexicalDebt = { stale: string[]; gone: string[] };

/** Records by id, first by path when ids collide: a Map, or a view that decodes a record when it is asked for. */
export interface RecordsById {
  get(id: string): CatalogueRecord | undefined;
  has(id: string): boolean;
  readonly size: number;
  keys(): Iterable<string>;
  values(): Iterable<CatalogueRecord>;
  [Symbol.iterator](): Iterator<[string, CatalogueRecord]>;
}

/** Per record in the file's table: id, path ("" when derived), state (0 active, 1 archived), mtimeMs, size, flags. */
export const ROW = 6;
export const RACY = 1;
export const UNPARSED = 2;
export const HAS_CODE = 4;

export type StoredParts = {
  file: string;
  dirs: CatalogueDirs;
  /** The records' lines (each ends with "\n"), `starts[i]` the offset of line i, `starts[count]` the end. */
  text: Buffer;
  starts: Uint32Array;
  rows: ReadonlyArray<string | number>;
  sources: readonly string[];
  /** Distinct [source number, size, mtimeMs, hash|0] of every record's anchored code. */
  signatures: ReadonlyArray<string | number>;
  /** Every `agents:` scope of the active entries (first by path per id). */
  scopes: readonly string[];
  broken: BrokenFile[];
  lexical: LexicalDebt;
};

export class StoredCatalogue implements CatalogueData {
  readonly broken: BrokenFile[];
  readonly lexical: LexicalDebt;
  readonly size: number;
  readonly sources: readonly string[];
  readonly signatures: ReadonlyArray<string | number>;
  readonly scopes: readonly string[];
  readonly #file: string;
  readonly #dirs: CatalogueDirs;
  readonly #rows: ReadonlyArray<string | number>;
  #text: Buffer | null;
  readonly #starts: Uint32Array;
  readonly #decoded: Array<CatalogueRecord | undefined>;
  #all: CatalogueRecord[] | undefined;
  #byPath: Map<string, number> | undefined;
  #byId: Map<string, number> | undefined;
  readonly #racy: boolean;

  constructor(parts: StoredParts) {
    this.#file = parts.file;
    this.#dirs = parts.dirs;
    this.#text = parts.text;
    this.#starts = parts.starts;
    this.#rows = parts.rows;
    this.size = parts.starts.length - 1;
    this.#decoded = new Array<CatalogueRecord | undefined>(this.size);
    this.sources = parts.sources;
    this.signatures = parts.signatures;
    this.scopes = parts.scopes;
    this.broken = parts.broken;
    this.lexical = parts.lexical;
    let racy = parts.broken.some((b) => b.racy);
    for (let i = 0; i < this.size && !racy; i++) racy = ((this.#rows[i * ROW + 5] as number) & RACY) !== 0;
    this.#racy = racy;
  }

  /** Every record, sorted by path (decoded once; the encoded text is dropped then). */
  get records(): CatalogueRecord[] {
    if (!this.#all) {
      const all: CatalogueRecord[] = [];
      for (let i = 0; i < this.size; i++) all.push(this.at(i));
      this.#all = all;
      this.#text = null;
      // Decoding leaves every line's text and tuple behind: collect them before the command's own work piles on top
      // (at 100k entries `status` otherwise peaks at about 1 GB).
      if (this.size >= COLLECT_FROM_ENTRIES) collectGarbage();
    }
    return this.#all;
  }

  /** True once every record was decoded (`records`): the encoded lines are gone. */
  get materialized(): boolean {
    return this.#all !== undefined;
  }

  /** Record i (sorted by path), decoded on first use. */
  at(i: number): CatalogueRecord {
    const known = this.#decoded[i];
    if (known) return known;
    const text = this.#text!;
    let record: CatalogueRecord | undefined;
    try {
      record = decodeRecord(JSON.parse(text.toString("utf8", this.#starts[i]!, this.#starts[i + 1]! - 1)), this.#dirs, this.sources);
    } catch {
      record = undefined;
    }
    // The file's checksum matched when it was opened: only a forged file gets here.
    if (!record) throw new CairnError("IO", `the index in .cairn/ is damaged (record ${i + 1} of ${this.#file} does not decode); run \`cairn index --rebuild\``);
    this.#decoded[i] = record;
    return record;
  }

  /** Record i if it was decoded (the writer re-encodes those: their anchored code may have changed). */
  decodedAt(i: number): CatalogueRecord | undefined {
    return this.#decoded[i];
  }

  /** Line i as stored, with its "\n" (before `records` dropped the text). */
  rawLine(i: number): Buffer {
    return this.#text!.subarray(this.#starts[i]!, this.#starts[i + 1]!);
  }

  /** The table row of record i: id, path ("" when derived), state, mtimeMs, size, flags. */
  row(i: number): ReadonlyArray<string | number> {
    return this.#rows.slice(i * ROW, i * ROW + ROW);
  }

  idAt(i: number): string {
    return this.#rows[i * ROW] as string;
  }

  pathAt(i: number): string {
    const stored = this.#rows[i * ROW + 1] as string;
    return stored || derivedPath(this.#dirs, this.idAt(i), this.stateAt(i));
  }

  stateAt(i: number): CatalogueRecord["state"] {
    return this.#rows[i * ROW + 2] === 0 ? "active" : "archived";
  }

  flagsAt(i: number): number {
    return this.#rows[i * ROW + 5] as number;
  }

  /** The record of an entry file by its path. */
  recordAt(file: string): CatalogueRecord | undefined {
    this.#byPath ??= new Map(Array.from({ length: this.size }, (_, i) => [this.pathAt(i), i]));
    const i = this.#byPath.get(file);
    return i === undefined ? undefined : this.at(i);
  }

  /** Records by id (first by path), decoded when asked for. */
  byId(): RecordsById {
    if (!this.#byId) {
      const ids = new Map<string, number>();
      for (let i = 0; i < this.size; i++) if (!ids.has(this.idAt(i))) ids.set(this.idAt(i), i);
      this.#byId = ids;
    }
    const ids = this.#byId;
    const at = (i: number) => this.at(i);
    return {
      get: (id) => {
        const i = ids.get(id);
        return i === undefined ? undefined : at(i);
      },
      has: (id) => ids.has(id),
      size: ids.size,
      keys: () => ids.keys(),
      *values() {
        for (const i of ids.values()) yield at(i);
      },
      *[Symbol.iterator]() {
        for (const [id, i] of ids) yield [id, at(i)] as [string, CatalogueRecord];
      },
    };
  }

  /** Ids (first by path) whose anchored code was never built or was dropped: owed to the lexical index. */
  idsWithoutCode(): string[] {
    const out: string[] = [];
    this.byId();
    for (const [id, i] of this.#byId!) {
      const decoded = this.#decoded[i];
      if (decoded ? !decoded.code : !(this.flagsAt(i) & HAS_CODE)) out.push(id);
    }
    return out;
  }

  /**
   * True when these files are exactly the ones recorded, each with the same state, size and mtime, and no
   * record was stat-ed within the racy window of a write (those are compared by content, by a full refresh).
   */
  sameFiles(files: ReadonlyArray<{ rel: string; state: CatalogueRecord["state"]; mtimeMs: number; size: number }>): boolean {
    if (this.#racy || files.length !== this.size + this.broken.length) return false;
    this.#byPath ??= new Map(Array.from({ length: this.size }, (_, i) => [this.pathAt(i), i]));
    const broken = new Map(this.broken.map((b) => [b.path, b]));
    for (const f of files) {
      const i = this.#byPath.get(f.rel);
      if (i === undefined) {
        const b = broken.get(f.rel);
        if (!b || b.state !== f.state || b.mtimeMs !== f.mtimeMs || b.size !== f.size) return false;
        continue;
      }
      const at = i * ROW;
      if (this.stateAt(i) !== f.state || this.#rows[at + 3] !== f.mtimeMs || this.#rows[at + 4] !== f.size) return false;
    }
    return true;
  }

  /** True when every file some record's anchored code was read from has the size and mtime it had then (none compared by content). */
  sameSources(root: string): boolean {
    const seen = new Map<number, { size: number; mtimeMs: number }>();
    const sigs = this.signatures;
    for (let k = 0; k < sigs.length; k += 4) {
      if (sigs[k + 3] !== 0) return false;
      const n = sigs[k] as number;
      let now = seen.get(n);
      if (!now) seen.set(n, (now = signatureOf(root, this.sources[n]!)));
      if (now.size !== sigs[k + 1] || now.mtimeMs !== sigs[k + 2]) return false;
    }
    return true;
  }
}
