/**
 * The catalogue as the index holds it: records in path order, each either still encoded (a line of the
 * saved records file, read and decoded when asked for) or a record in memory (decoded, or parsed by this
 * process). The saved table (catalogue-table.ts) — per record id, path, state, size, mtime, flags, and what
 * retrieval filters and ranks on (status, agents, anchor paths) and what the anchored code was read from —
 * tells a refresh that nothing changed, a search which entries an agent may see and which cite a changed
 * file, without reading a record. A refresh that re-parsed a few files makes a new catalogue sharing the
 * saved lines of the rest (`patched`), and a save copies those lines as they are. `status` and `check` ask
 * for every record (`records`): the records file is read whole, once, and every record decoded.
 */
import { CairnError } from "../errors.js";
import { COLLECT_FROM_ENTRIES, collectGarbage } from "../store/gc.js";
import type { BrokenFile, CatalogueData, CatalogueRecord, CodeRecord } from "./catalogue.js";
import { decodeRecord, derivedPath, type CatalogueDirs } from "./catalogue-codec.js";
import { DamagedRecords, type RecordLines } from "./catalogue-lines.js";
import { ARCHIVED, HAS_CODE, RACY, type LexicalDebt, type Table } from "./catalogue-table.js";
import type { AnchorRef } from "./document.js";

export type { LexicalDebt } from "./catalogue-table.js";

/** A saved catalogue, shared by every catalogue patched from it: its table, and its records file (read by position). */
export type Storage = { table: Table; lines: RecordLines };

/** A record's retrieval facets: what a search filters on without decoding the record. */
export const statusOf = (frontmatter: CatalogueRecord["frontmatter"]): string => (typeof frontmatter.status === "string" ? frontmatter.status : "observed");

export function stringsOf(value: unknown): string[] {
  if (typeof value === "string") return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/** Records by id, first by path when ids collide; `get` decodes a record when it is asked for. */
export interface RecordsById {
  get(id: string): CatalogueRecord | undefined;
  has(id: string): boolean;
  readonly size: number;
  keys(): Iterable<string>;
  values(): Iterable<CatalogueRecord>;
  [Symbol.iterator](): Iterator<[string, CatalogueRecord]>;
}

/** Decoding more records than this reads the records file whole rather than a line at a time. */
const READ_WHOLE_FROM = 256;

/** Positions by path: paths stored in full, and ids of the records stored as `<dir>/<id>.md` per state. */
type PathIndex = { paths: Map<string, number>; active: Map<string, number>; archived: Map<string, number> };

type Parts = { dirs: CatalogueDirs; store: Storage | null; line: Int32Array; decoded: Array<CatalogueRecord | undefined>; codeAt: Array<CodeRecord | undefined | null>; broken: BrokenFile[]; lexical: LexicalDebt };

export class StoredCatalogue implements CatalogueData {
  readonly broken: BrokenFile[];
  readonly lexical: LexicalDebt;
  readonly size: number;
  readonly dirs: CatalogueDirs;
  readonly #store: Storage | null;
  /** Per position: the saved line (its table row) it is, or -1 for a record only in memory. */
  readonly #line: Int32Array;
  readonly #decoded: Array<CatalogueRecord | undefined>;
  /** The anchored code a saved record had when decoded (null: not decoded from a line): a save re-encodes a record whose code changed since. */
  readonly #codeAt: Array<CodeRecord | undefined | null>;
  #all: CatalogueRecord[] | undefined;
  #byPath: PathIndex | undefined;
  #byId: Map<string, number> | undefined;
  #twice: Set<string> | undefined;
  #racy: boolean | undefined;
  /** Anchor paths by label (a glob under -1 - label). */
  readonly #anchorRefs: Record<number, AnchorRef> = {};
  /** Sets of the table as each role reads them, built once per set. */
  readonly #sets = { agents: new Map<number, readonly string[]>(), anchors: new Map<number, readonly AnchorRef[]>() };

  private constructor(parts: Parts) {
    this.dirs = parts.dirs;
    this.#store = parts.store;
    this.#line = parts.line;
    this.#decoded = parts.decoded;
    this.#codeAt = parts.codeAt;
    this.size = parts.line.length;
    this.broken = parts.broken;
    this.lexical = parts.lexical;
  }

  /** A saved catalogue: every record a line of its records file. */
  static open(dirs: CatalogueDirs, store: Storage, broken: BrokenFile[], lexical: LexicalDebt): StoredCatalogue {
    const count = store.table.ids.length;
    return new StoredCatalogue({ dirs, store, line: Int32Array.from({ length: count }, (_, i) => i), decoded: new Array(count), codeAt: new Array(count).fill(null), broken, lexical });
  }

  /** A catalogue of records in memory (sorted by path), e.g. a first index. */
  static of(dirs: CatalogueDirs, data: CatalogueData, lexical: LexicalDebt = { stale: [], gone: [] }): StoredCatalogue {
    const count = data.records.length;
    return new StoredCatalogue({ dirs, store: null, line: new Int32Array(count).fill(-1), decoded: [...data.records], codeAt: new Array(count).fill(null), broken: data.broken, lexical });
  }

  /**
   * A new catalogue of `entries` (in path order): a number keeps that position of this catalogue as it is (its saved
   * line, and its record if decoded), a record is new.
   */
  patched(entries: ReadonlyArray<number | CatalogueRecord>, broken: BrokenFile[]): StoredCatalogue {
    const line = new Int32Array(entries.length);
    const decoded = new Array<CatalogueRecord | undefined>(entries.length);
    const codeAt = new Array<CodeRecord | undefined | null>(entries.length);
    entries.forEach((e, k) => {
      if (typeof e === "number") {
        line[k] = this.#line[e]!;
        decoded[k] = this.#decoded[e];
        codeAt[k] = this.#codeAt[e]!;
      } else {
        line[k] = -1;
        decoded[k] = e;
        codeAt[k] = null;
      }
    });
    return new StoredCatalogue({ dirs: this.dirs, store: this.#store, line, decoded, codeAt, broken, lexical: this.lexical });
  }

  /** This catalogue as just saved in `store` (its row k is position k): records in memory stay, now backed by their saved line. */
  rebased(store: Storage): StoredCatalogue {
    const decoded = [...this.#decoded];
    const codeAt = decoded.map((record) => (record ? record.code : null));
    return new StoredCatalogue({ dirs: this.dirs, store, line: Int32Array.from({ length: this.size }, (_, k) => k), decoded, codeAt, broken: this.broken, lexical: this.lexical });
  }

  /**
   * Read the records file whole (one read) and check every line, before decoding many records (else each is read by
   * position). Throws DamagedRecords when the file was damaged since it was written (the search index rebuilds).
   */
  loadLines(): void {
    if (this.#store && !this.#all) this.#store.lines.load();
  }

  /** About to decode `count` saved records: many are read whole (one read), a few by position. */
  willRead(count: number): void {
    if (count > READ_WHOLE_FROM) this.loadLines();
  }

  /** Every record, sorted by path (decoded once; the lines read for it are dropped then). */
  get records(): CatalogueRecord[] {
    if (!this.#all) {
      const all: CatalogueRecord[] = [];
      for (let k = 0; k < this.size; k++) all.push(this.at(k));
      this.#all = all;
      this.#store?.lines.unload();
      // Decoding leaves every line's text and tuple behind: collect them before the command's own work piles on top
      // (at 100k entries `status` otherwise peaks at about 1 GB).
      if (this.size >= COLLECT_FROM_ENTRIES) collectGarbage();
    }
    return this.#all;
  }

  /** True once every record was decoded (`records`). */
  get materialized(): boolean {
    return this.#all !== undefined;
  }

  /** The record at position k (sorted by path), decoded on first use. */
  at(k: number): CatalogueRecord {
    const known = this.#decoded[k];
    if (known) return known;
    const i = this.#line[k]!;
    const store = this.#store!;
    const line = store.lines.line(i);
    // A line that no longer matches its crc: the search index catches this and rebuilds the catalogue from the entry files.
    if (!line) throw new DamagedRecords(store.lines.file, i + 1);
    let record: CatalogueRecord | undefined;
    try {
      record = decodeRecord(JSON.parse(line.toString("utf8")), this.dirs, store.table.sources);
    } catch {
      record = undefined;
    }
    // The line's checksum matched: only a forged file gets here.
    if (!record) throw new CairnError("IO", `the index in .cairn/ is damaged (record ${i + 1} of ${store.lines.file} does not decode); run \`cairn index --rebuild\``);
    this.#decoded[k] = record;
    this.#codeAt[k] = record.code;
    return record;
  }

  /** Record k if it is in memory (decoded or new). */
  decodedAt(k: number): CatalogueRecord | undefined {
    return this.#decoded[k];
  }

  /** The saved catalogue this one reads its lines from (null: none), for the writer. */
  get storage(): Storage | null {
    return this.#store;
  }

  /** The saved line (its table row) of position k, when the record there is still what that line says (for the writer); else -1. */
  savedAt(k: number): number {
    const i = this.#line[k]!;
    if (i < 0) return -1;
    const decoded = this.#decoded[k];
    // A decoded record is what its line says unless its anchored code was rebuilt, dropped or settled (the only fields changed in place).
    if (decoded && (decoded.code !== this.#codeAt[k] || decoded.code?.sources.some((s) => s.hash !== undefined))) return -1;
    return i;
  }

  /** True when positions a (of this catalogue) and b (of `other`) hold the same record: the same saved line, or the same record in memory. */
  sameAs(a: number, other: StoredCatalogue, b: number): boolean {
    const line = this.#line[a]!;
    if (line >= 0) return line === other.#line[b] && this.#store === other.#store;
    return this.#decoded[a] !== undefined && this.#decoded[a] === other.#decoded[b];
  }

  idAt(k: number): string {
    return this.#decoded[k]?.id ?? this.#store!.table.ids[this.#line[k]!]!;
  }

  pathAt(k: number): string {
    const record = this.#decoded[k];
    if (record) return record.path;
    return this.#store!.table.paths[this.#line[k]!] || derivedPath(this.dirs, this.idAt(k), this.stateAt(k));
  }

  stateAt(k: number): CatalogueRecord["state"] {
    const record = this.#decoded[k];
    if (record) return record.state;
    return this.#store!.table.flags[this.#line[k]!]! & ARCHIVED ? "archived" : "active";
  }

  mtimeAt(k: number): number {
    return this.#decoded[k]?.mtimeMs ?? this.#store!.table.mtime[this.#line[k]!]!;
  }

  sizeAt(k: number): number {
    return this.#decoded[k]?.size ?? this.#store!.table.size[this.#line[k]!]!;
  }

  /** True when the recorded stat was taken within the racy window of a write. */
  racyAt(k: number): boolean {
    const record = this.#decoded[k];
    return record ? record.racy === true : (this.#store!.table.flags[this.#line[k]!]! & RACY) !== 0;
  }

  hasCodeAt(k: number): boolean {
    const record = this.#decoded[k];
    return record ? record.code !== undefined : (this.#store!.table.flags[this.#line[k]!]! & HAS_CODE) !== 0;
  }

  statusAt(k: number): string {
    const record = this.#decoded[k];
    if (record) return statusOf(record.frontmatter);
    const table = this.#store!.table;
    return table.labels[table.status[this.#line[k]!]!]!;
  }

  agentsAt(k: number): readonly string[] {
    const record = this.#decoded[k];
    if (record) return stringsOf(record.frontmatter.agents);
    const table = this.#store!.table;
    return this.#set(this.#sets.agents, table.agents[this.#line[k]!]!, (list) => list.map((n) => table.labels[n]!));
  }

  /** Where record k's anchors point: paths and globs (lines and symbols only once decoded). */
  anchorPathsAt(k: number): readonly AnchorRef[] {
    const record = this.#decoded[k];
    if (record) return record.anchors;
    // One object per distinct path (entries share them): the changed-code signal compares each path once.
    const table = this.#store!.table;
    const refs = this.#anchorRefs;
    const ref = (n: number): AnchorRef => (refs[n] ??= n < 0 ? { path: table.labels[-1 - n]!, glob: true } : { path: table.labels[n]! });
    return this.#set(this.#sets.anchors, table.anchors[this.#line[k]!]!, (list) => list.map(ref));
  }

  /** The saved line (table row) of position k, or -1 when its record is in memory (decoded or new: ask the record). */
  savedLineAt(k: number): number {
    return this.#decoded[k] ? -1 : this.#line[k]!;
  }

  /** A set of the table as `build` makes it for one role, once per set (entries share them). */
  #set<T>(cache: Map<number, T>, n: number, build: (list: readonly number[]) => T): T {
    let value = cache.get(n);
    if (value === undefined) cache.set(n, (value = build(this.#store!.table.sets[n]!)));
    return value;
  }

  /** True when some recorded stat was taken within the racy window of a write (those are compared by content). */
  get racy(): boolean {
    if (this.#racy === undefined) {
      let racy = this.broken.some((b) => b.racy);
      for (let k = 0; k < this.size && !racy; k++) racy = this.racyAt(k);
      this.#racy = racy;
    }
    return this.#racy;
  }

  /** The position of an entry file by its path. */
  positionAt(file: string): number | undefined {
    const index = (this.#byPath ??= this.#pathIndex());
    const explicit = index.paths.get(file);
    if (explicit !== undefined) return explicit;
    // `<dir>/<id>.md`, stored as "" (most records): found by id, without building every path.
    for (const [dir, ids] of [[this.dirs.active, index.active], [this.dirs.archived, index.archived]] as const) {
      if (file.length > dir.length + 4 && file.charCodeAt(dir.length) === 0x2f && file.startsWith(dir) && file.endsWith(".md")) {
        const id = file.slice(dir.length + 1, -3);
        if (!id.includes("/")) return ids.get(id);
      }
    }
    return undefined;
  }

  #pathIndex(): PathIndex {
    const index: PathIndex = { paths: new Map(), active: new Map(), archived: new Map() };
    const table = this.#store?.table;
    for (let k = 0; k < this.size; k++) {
      const i = this.#line[k]!;
      const stored = this.#decoded[k] || i < 0 ? undefined : table!.paths[i]!;
      if (stored === "") (table!.flags[i]! & ARCHIVED ? index.archived : index.active).set(table!.ids[i]!, k);
      else index.paths.set(stored ?? this.#decoded[k]!.path, k);
    }
    return index;
  }

  /** The record of an entry file by its path. */
  recordAt(file: string): CatalogueRecord | undefined {
    const k = this.positionAt(file);
    return k === undefined ? undefined : this.at(k);
  }

  /** Ids → their position, first by path. */
  positions(): ReadonlyMap<string, number> {
    if (!this.#byId) {
      const ids = new Map<string, number>();
      const twice = new Set<string>();
      for (let k = 0; k < this.size; k++) {
        const id = this.idAt(k);
        if (!ids.has(id)) ids.set(id, k);
        else twice.add(id);
      }
      this.#byId = ids;
      this.#twice = twice;
    }
    return this.#byId;
  }

  /** Ids that more than one entry file claims (`check`: id-duplicate), found with the positions: no copy may be injected. */
  claimedTwice(): ReadonlySet<string> {
    return this.positions() && this.#twice!;
  }

  /** Records by id (first by path), decoded when asked for. */
  byId(): RecordsById {
    const ids = this.positions();
    const at = (k: number) => this.at(k);
    return {
      get: (id) => {
        const k = ids.get(id);
        return k === undefined ? undefined : at(k);
      },
      has: (id) => ids.has(id),
      size: ids.size,
      keys: () => ids.keys(),
      *values() {
        for (const k of ids.values()) yield at(k);
      },
      *[Symbol.iterator]() {
        for (const [id, k] of ids) yield [id, at(k)] as [string, CatalogueRecord];
      },
    };
  }

  /** Every distinct `agents:` scope of the active entries (first by path per id), sorted. */
  scopes(): string[] {
    const scopes = new Set<string>();
    // Saved records by their agents set (entries share a few), without a record or a list per position.
    const sets = new Set<number>();
    const table = this.#store?.table;
    for (const k of this.positions().values()) {
      const i = this.#line[k]!;
      if (this.#decoded[k] || i < 0) {
        if (this.stateAt(k) === "active") for (const scope of this.agentsAt(k)) scopes.add(scope);
      } else if (!(table!.flags[i]! & ARCHIVED)) sets.add(table!.agents[i]!);
    }
    for (const set of sets) for (const label of table!.sets[set]!) scopes.add(table!.labels[label]!);
    return [...scopes].sort();
  }

  /**
   * True when these files (with their stats: `mtimes[i]`, `sizes[i]`; NaN when the file is gone) are exactly the ones
   * recorded, each with the same state, size and mtime. A record stat-ed within the racy window of a write counts as
   * the same only when `racySame(k, i)` says so (it compares the content); without it, or for a file that never
   * parsed, a racy one never does (a full refresh compares it).
   */
  sameFiles(files: ReadonlyArray<{ rel: string; state: CatalogueRecord["state"] }>, mtimes: Float64Array, sizes: Float64Array, racySame?: (k: number, i: number) => boolean): boolean {
    if (files.length !== this.size + this.broken.length) return false;
    if (this.racy && (!racySame || this.broken.some((b) => b.racy))) return false;
    const broken = new Map(this.broken.map((b) => [b.path, b]));
    for (let i = 0; i < files.length; i++) {
      const f = files[i]!;
      const k = this.positionAt(f.rel);
      if (k === undefined) {
        const b = broken.get(f.rel);
        if (!b || b.state !== f.state || b.mtimeMs !== mtimes[i] || b.size !== sizes[i]) return false;
        continue;
      }
      if (this.stateAt(k) !== f.state || this.mtimeAt(k) !== mtimes[i] || this.sizeAt(k) !== sizes[i]) return false;
      if (racySame && this.racy && this.racyAt(k) && !racySame(k, i)) return false;
    }
    return true;
  }
}
