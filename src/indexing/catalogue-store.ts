/**
 * The catalogue as the index holds it: records in path order, each either still encoded (a line of the
 * saved file, decoded when asked for) or a record in memory (decoded, or parsed by this process). A table
 * row per saved line — id, path, state, size, mtime, flags, and what retrieval filters and ranks on
 * (status, agents, anchor paths) and what the anchored code was read from — tells a refresh that nothing
 * changed, a search which entries an agent may see and which cite a changed file, without decoding a
 * record. A refresh that re-parsed a few files makes a new catalogue sharing the saved lines of the rest
 * (`patched`), and a save copies those lines as they are. `status` and `check` ask for every record
 * (`records`), decoded once.
 */
import { CairnError } from "../errors.js";
import { COLLECT_FROM_ENTRIES, collectGarbage } from "../store/gc.js";
import type { BrokenFile, CatalogueData, CatalogueRecord, CodeRecord } from "./catalogue.js";
import { decodeRecord, derivedPath, type CatalogueDirs } from "./catalogue-codec.js";
import type { AnchorRef } from "./document.js";

/** Ids whose lexical document must be re-analyzed from their file (`stale`) or dropped (`gone`) when the lexical index is next loaded. */
export type LexicalDebt = { stale: string[]; gone: string[] };

/** Columns of a saved record's table row. */
export const COL = { id: 0, path: 1, state: 2, mtimeMs: 3, size: 4, flags: 5, status: 6, agents: 7, anchors: 8, code: 9 } as const;
/** Values per row: id, path ("" when derived), state (0 active, 1 archived), mtimeMs, size, flags, status (a label), agents (a set of labels), anchor paths (a set: label, or -1 - label for a glob), the anchored code's signatures (a set, -1 without code). */
export const ROW = 10;
export const RACY = 1;
export const UNPARSED = 2;
export const HAS_CODE = 4;

/** A saved catalogue file's contents, shared by every catalogue patched from it. */
export type Storage = {
  file: string;
  /** The records' lines (each ends with "\n"), `starts[i]` the offset of line i, `starts[count]` the end. */
  text: Buffer;
  starts: Uint32Array;
  rows: ReadonlyArray<string | number>;
  /** Strings the rows refer to: statuses, agent names, anchor paths. */
  labels: readonly string[];
  /** Lists of numbers the rows refer to: agents (labels), anchors (labels, -1 - label for a glob), signatures. */
  sets: ReadonlyArray<readonly number[]>;
  sources: readonly string[];
  /** Distinct [source number, size, mtimeMs, hash|0] of the records' anchored code. */
  signatures: ReadonlyArray<string | number>;
};

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

/** Positions by path: paths stored in full, and ids of the records stored as `<dir>/<id>.md` per state. */
type PathIndex = { paths: Map<string, number>; active: Map<string, number>; archived: Map<string, number> };

type Parts = { dirs: CatalogueDirs; store: Storage | null; line: Int32Array; decoded: Array<CatalogueRecord | undefined>; codeAt: Array<CodeRecord | undefined | null>; broken: BrokenFile[]; lexical: LexicalDebt };

export class StoredCatalogue implements CatalogueData {
  readonly broken: BrokenFile[];
  readonly lexical: LexicalDebt;
  readonly size: number;
  readonly dirs: CatalogueDirs;
  readonly #store: Storage | null;
  #text: Buffer | null;
  /** Per position: the saved line it is, or -1 for a record only in memory. */
  readonly #line: Int32Array;
  readonly #decoded: Array<CatalogueRecord | undefined>;
  /** The anchored code a saved record had when decoded (null: not decoded from a line): a save re-encodes a record whose code changed since. */
  readonly #codeAt: Array<CodeRecord | undefined | null>;
  #all: CatalogueRecord[] | undefined;
  #byPath: PathIndex | undefined;
  #byId: Map<string, number> | undefined;
  #racy: boolean | undefined;
  /** Sets of the table as each role reads them (agents, anchors, signatures), built once per set. */
  /** Anchor paths by label (a glob under -1 - label). */
  readonly #anchorRefs: Record<number, AnchorRef> = {};
  readonly #sets = { agents: new Map<number, readonly string[]>(), anchors: new Map<number, readonly AnchorRef[]>() };

  private constructor(parts: Parts) {
    this.dirs = parts.dirs;
    this.#store = parts.store;
    this.#text = parts.store?.text ?? null;
    this.#line = parts.line;
    this.#decoded = parts.decoded;
    this.#codeAt = parts.codeAt;
    this.size = parts.line.length;
    this.broken = parts.broken;
    this.lexical = parts.lexical;
  }

  /** A saved file's catalogue: every record a line of it. */
  static open(dirs: CatalogueDirs, store: Storage, broken: BrokenFile[], lexical: LexicalDebt): StoredCatalogue {
    const count = store.starts.length - 1;
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
    // The saved lines stay readable through the new catalogue unless this one dropped them (every record is decoded then).
    const store = this.#text === null ? null : this.#store;
    entries.forEach((e, k) => {
      if (typeof e === "number") {
        line[k] = store ? this.#line[e]! : -1;
        decoded[k] = this.#decoded[e];
        codeAt[k] = this.#codeAt[e]!;
      } else {
        line[k] = -1;
        decoded[k] = e;
        codeAt[k] = null;
      }
    });
    return new StoredCatalogue({ dirs: this.dirs, store, line, decoded, codeAt, broken, lexical: this.lexical });
  }

  /** Every record, sorted by path (decoded once; the saved lines are dropped then). */
  get records(): CatalogueRecord[] {
    if (!this.#all) {
      const all: CatalogueRecord[] = [];
      for (let k = 0; k < this.size; k++) all.push(this.at(k));
      this.#all = all;
      this.#text = null;
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
    let record: CatalogueRecord | undefined;
    try {
      record = decodeRecord(JSON.parse(this.#text!.toString("utf8", store.starts[i]!, store.starts[i + 1]! - 1)), this.dirs, store.sources);
    } catch {
      record = undefined;
    }
    // The file's checksum matched when it was opened: only a forged file gets here.
    if (!record) throw new CairnError("IO", `the index in .cairn/ is damaged (record ${i + 1} of ${store.file} does not decode); run \`cairn index --rebuild\``);
    this.#decoded[k] = record;
    this.#codeAt[k] = record.code;
    return record;
  }

  /** Record k if it is in memory (decoded or new). */
  decodedAt(k: number): CatalogueRecord | undefined {
    return this.#decoded[k];
  }

  /** The saved file this catalogue reads its lines from (null: none, or no longer read), for the writer. */
  get storage(): Storage | null {
    return this.#text === null ? null : this.#store;
  }

  /** Where the saved line of position k lies in the saved text (`to` past its "\n") and where its row starts, when the record there is still what that line says (for the writer). */
  savedAt(k: number): { from: number; to: number; row: number } | undefined {
    const i = this.#line[k]!;
    const store = this.storage;
    if (i < 0 || !store) return undefined;
    const decoded = this.#decoded[k];
    // A decoded record is what its line says unless its anchored code was rebuilt, dropped or settled (the only fields changed in place).
    if (decoded && (decoded.code !== this.#codeAt[k] || decoded.code?.sources.some((s) => s.hash !== undefined))) return undefined;
    return { from: store.starts[i]!, to: store.starts[i + 1]!, row: i * ROW };
  }

  /** True when positions a (of this catalogue) and b (of `other`) hold the same record: the same saved line, or the same record in memory. */
  sameAs(a: number, other: StoredCatalogue, b: number): boolean {
    const line = this.#line[a]!;
    if (line >= 0) return line === other.#line[b] && this.#store === other.#store;
    return this.#decoded[a] !== undefined && this.#decoded[a] === other.#decoded[b];
  }

  #row(k: number, col: number): string | number | undefined {
    const i = this.#line[k]!;
    return i < 0 ? undefined : this.#store!.rows[i * ROW + col];
  }

  idAt(k: number): string {
    return this.#decoded[k]?.id ?? (this.#row(k, COL.id) as string);
  }

  pathAt(k: number): string {
    const record = this.#decoded[k];
    if (record) return record.path;
    return (this.#row(k, COL.path) as string) || derivedPath(this.dirs, this.idAt(k), this.stateAt(k));
  }

  stateAt(k: number): CatalogueRecord["state"] {
    const record = this.#decoded[k];
    if (record) return record.state;
    return this.#row(k, COL.state) === 0 ? "active" : "archived";
  }

  mtimeAt(k: number): number {
    return this.#decoded[k]?.mtimeMs ?? (this.#row(k, COL.mtimeMs) as number);
  }

  sizeAt(k: number): number {
    return this.#decoded[k]?.size ?? (this.#row(k, COL.size) as number);
  }

  /** True when the recorded stat was taken within the racy window of a write. */
  racyAt(k: number): boolean {
    const record = this.#decoded[k];
    return record ? record.racy === true : ((this.#row(k, COL.flags) as number) & RACY) !== 0;
  }

  hasCodeAt(k: number): boolean {
    const record = this.#decoded[k];
    return record ? record.code !== undefined : ((this.#row(k, COL.flags) as number) & HAS_CODE) !== 0;
  }

  statusAt(k: number): string {
    const record = this.#decoded[k];
    return record ? statusOf(record.frontmatter) : this.#store!.labels[this.#row(k, COL.status) as number]!;
  }

  agentsAt(k: number): readonly string[] {
    const record = this.#decoded[k];
    if (record) return stringsOf(record.frontmatter.agents);
    return this.#set(this.#sets.agents, this.#row(k, COL.agents) as number, (list) => list.map((n) => this.#store!.labels[n]!));
  }

  /** Where record k's anchors point: paths and globs (lines and symbols only once decoded). */
  anchorPathsAt(k: number): readonly AnchorRef[] {
    const record = this.#decoded[k];
    if (record) return record.anchors;
    // One object per distinct path (entries share them): the changed-code signal compares each path once.
    const labels = this.#store!.labels;
    const refs = this.#anchorRefs;
    const ref = (n: number): AnchorRef => (refs[n] ??= n < 0 ? { path: labels[-1 - n]!, glob: true } : { path: labels[n]! });
    return this.#set(this.#sets.anchors, this.#row(k, COL.anchors) as number, (list) => list.map(ref));
  }

  /**
   * The saved signatures whose file changed since (`changed`, given the file's size and mtime now) or that are
   * compared by content (`hashed`, stat-ed within the racy window): one look at each distinct signature.
   */
  savedSignatureChanges(statOf: (file: string) => { size: number; mtimeMs: number }): { changed: Set<number>; hashed: Set<number> } {
    const changed = new Set<number>();
    const hashed = new Set<number>();
    const store = this.storage;
    if (!store) return { changed, hashed };
    const sigs = store.signatures;
    for (let n = 0; n < sigs.length / 4; n++) {
      const now = statOf(store.sources[sigs[n * 4] as number]!);
      if (now.size !== sigs[n * 4 + 1] || now.mtimeMs !== sigs[n * 4 + 2]) changed.add(n);
      else if (sigs[n * 4 + 3] !== 0) hashed.add(n);
    }
    return { changed, hashed };
  }

  /** The signatures (numbers, see `savedSignatureChanges`) record k's anchored code was read from, from its row; undefined when the record is in memory (its `code` says) or has no code. */
  savedSignaturesAt(k: number): readonly number[] | undefined {
    if (this.#decoded[k]) return undefined;
    const set = this.#row(k, COL.code) as number;
    return set < 0 ? undefined : this.#store!.sets[set];
  }

  /** The source paths of saved signatures. */
  signaturePaths(list: readonly number[]): string[] {
    const { signatures, sources } = this.#store!;
    return list.map((n) => sources[signatures[n * 4] as number]!);
  }

  /** A set of the table as `build` makes it for one role, once per set (entries share them). */
  #set<T>(cache: Map<number, T>, n: number, build: (list: readonly number[]) => T): T {
    let value = cache.get(n);
    if (value === undefined) cache.set(n, (value = build(this.#store!.sets[n]!)));
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
    for (let k = 0; k < this.size; k++) {
      const stored = this.#decoded[k] ? undefined : (this.#row(k, COL.path) as string);
      if (stored === "") (this.#row(k, COL.state) === 0 ? index.active : index.archived).set(this.#row(k, COL.id) as string, k);
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
      for (let k = 0; k < this.size; k++) {
        const id = this.idAt(k);
        if (!ids.has(id)) ids.set(id, k);
      }
      this.#byId = ids;
    }
    return this.#byId;
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
    for (const k of this.positions().values()) if (this.stateAt(k) === "active") for (const scope of this.agentsAt(k)) scopes.add(scope);
    return [...scopes].sort();
  }

  /**
   * True when these files (with their stats: `mtimes[i]`, `sizes[i]`; NaN when the file is gone) are exactly the ones
   * recorded, each with the same state, size and mtime, and no record was stat-ed within the racy window of a write
   * (those are compared by content, by a full refresh).
   */
  sameFiles(files: ReadonlyArray<{ rel: string; state: CatalogueRecord["state"] }>, mtimes: Float64Array, sizes: Float64Array): boolean {
    if (this.racy || files.length !== this.size + this.broken.length) return false;
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
    }
    return true;
  }
}
