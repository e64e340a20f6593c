/**
 * The catalogue: per entry file, what the lifecycle and retrieval need without parsing it again —
 * id, state, known frontmatter, anchor places, hashes, parse problems — with the file's size and
 * mtime to tell when it changed. `refreshCatalogue` stats every file and parses only the changed
 * ones; `status`, `confirm`, `record`, decay, `compound`, `inject` and `show` read records and
 * only the files they touch. A full parse of every file stays in `check`.
 */
import { lstatSync, readFileSync, statSync } from "node:fs";
import type { AnchorPlace, SourceSignature } from "../anchors/code.js";
import type { Diagnostic } from "../entry/diagnostic.js";
import { isIsoDate, KNOWN_KEYS } from "../entry/schema.js";
import type { Entry, EntryState } from "../entry/types.js";
import { listEntryFiles, mapLimit, readEntryFile, type EntryFile } from "../store/files.js";
import type { Layout } from "../store/layout.js";
import { collectGarbage } from "../store/gc.js";
import { owned } from "../text/own.js";
import type { StoredCatalogue } from "./catalogue-store.js";
import { entryDocument, sha256, type AnchorRef, type IndexDoc } from "./document.js";
import { fileHashOf, sameFileBytes } from "./file-hash.js";

/**
 * What an entry's anchored-code lexical field was built from (lexical-docs.ts fills it when it
 * indexes the entry): the code's hash, a key of the anchors it was resolved for, the files it read
 * (their signatures, checked on every refresh) and where anchors point now.
 */
export type CodeRecord = {
  hash: string;
  /** Hash of the entry's anchors as written (a frontmatter-only edit keeps the code). */
  anchors: string;
  sources: SourceSignature[];
  places: AnchorPlace[];
};

/** One entry file as the catalogue knows it. `frontmatter` holds the known keys only. */
export type CatalogueRecord = {
  id: string;
  /** Repo-relative path, forward slashes. */
  path: string;
  state: EntryState;
  frontmatter: Entry["frontmatter"];
  /** Where the evidence anchors point (paths or globs, lines, symbols). */
  anchors: AnchorRef[];
  /** sha256 of the file bytes (first 32 hex digits). */
  fileHash: string;
  /** Hash of the lexical fields (the lexical index holds a document per hash). */
  lexicalHash: string;
  /** Hash of the embedded text (embedding cache key). */
  contentHash: string;
  /** Hash of the verify steps' text (verification records are tied to it). */
  verifyHash: string;
  /** Lines of the date and reference keys (the future-date and reference rules run on records). */
  keyLines?: Partial<Record<(typeof LINE_KEYS)[number], number>>;
  /** Problems the parser reported (not the rule modules'), future dates excluded. */
  problems?: Diagnostic[];
  mtimeMs: number;
  size: number;
  /** Stat taken within RACY_MS of the file's mtime: the same size and mtime may hide a later write, so re-read it once. */
  racy?: true;
  /** The file no longer parses: these are its problems, and the other fields are its last good version. */
  unparsed?: Diagnostic[];
  /** The anchored-code field as last indexed; undefined until the search index builds it (always present as a key: records keep one shape). */
  code?: CodeRecord | undefined;
};

/** A file that never parsed as an entry (no id): its problems. */
export type BrokenFile = { path: string; state: EntryState; problems: Diagnostic[]; mtimeMs: number; size: number; racy?: true };

export type CatalogueData = { records: CatalogueRecord[]; broken: BrokenFile[] };

/** An entry a refresh parsed: its new record, the entry and its index document. */
export type ParsedEntry = { record: CatalogueRecord; entry: Entry; doc: IndexDoc };

export type CatalogueChanges = {
  /** Records whose file was parsed in this refresh, by path, with the parsed entry (only the record when `onParsed` took it). */
  parsed: Map<string, { record: CatalogueRecord; entry?: Entry; doc?: IndexDoc }>;
  /** Paths that disappeared. */
  removed: string[];
  /** Parse problems of files that could not be (re)read as entries. */
  errors: Diagnostic[];
  /** True when anything differs from the previous data (stats included). */
  changed: boolean;
};

/** Files parsed at a time: a chunk's entries are handed on before the next chunk is read. */
const PARSE_CHUNK = 512;

/** A write within this many ms of the stat may share its mtime with a later write (timestamp granularity). */
export const RACY_MS = 2_000;
const DATE_KEYS = ["lastConfirmed", "created", "archived"] as const;
const LINE_KEYS = [...DATE_KEYS, "supersedes", "supersededBy", "contradicts"] as const;


export const emptyCatalogue = (): CatalogueData => ({ records: [], broken: [] });

export function shortHash(text: string, hexChars = 32): string {
  return sha256(text, hexChars);
}

/** The record of a parsed entry file. */
export function recordOf(entry: Entry, problems: readonly Diagnostic[], stat: { mtimeMs: number; size: number }, doc: IndexDoc = entryDocument(entry)): CatalogueRecord {
  const frontmatter: Entry["frontmatter"] = {};
  for (const [key, value] of Object.entries(entry.frontmatter)) if (KNOWN_KEYS.has(key)) frontmatter[key] = owned(value);
  const keyLines: CatalogueRecord["keyLines"] = {};
  for (const key of LINE_KEYS) if (entry.keyLines[key] !== undefined) keyLines[key] = entry.keyLines[key];
  const parseProblems = problems.filter((d) => d.rule !== "date-in-future");
  return {
    id: owned(entry.id),
    path: entry.path,
    state: entry.state,
    frontmatter,
    anchors: owned(doc.meta.anchors),
    fileHash: owned(fileHashOf(entry.hash)),
    lexicalHash: doc.lexicalHash,
    contentHash: doc.meta.contentHash,
    verifyHash: shortHash(entry.verify.text, 16),
    ...(Object.keys(keyLines).length ? { keyLines } : {}),
    ...(parseProblems.length ? { problems: parseProblems } : {}),
    mtimeMs: stat.mtimeMs,
    size: stat.size,
    code: undefined,
  };
}

/** The parser's problems of a record as of `today`: its stored problems plus future dates, which depend on the day. */
export function problemsOf(record: CatalogueRecord, today: string): Diagnostic[] {
  if (record.unparsed) return record.unparsed;
  const out = [...(record.problems ?? [])];
  for (const key of DATE_KEYS) {
    const value = record.frontmatter[key];
    // A date that does not exist (2026-13-45) is frontmatter-invalid, not also "in the future".
    if (typeof value === "string" && value > today && isIsoDate(value)) {
      const line = record.keyLines?.[key] ?? 2;
      out.push({ file: record.path, line, column: 1, rule: "date-in-future", severity: "error", message: `\`${key}\` is ${value}, after today (${today} UTC); expected a date that has happened` });
    }
  }
  return out;
}

/**
 * Bring a catalogue up to date with the entry files: stat every file, parse the ones whose size or
 * mtime changed (or whose last stat was racy and whose bytes differ). A file that stops parsing keeps
 * its last good record, marked `unparsed`. The records of unchanged files are kept as they are (still
 * encoded when they were): a changed file costs one parse, not a decode of every record.
 */
export async function refreshCatalogue(
  layout: Layout,
  previous: StoredCatalogue,
  options: {
    files?: EntryFile[];
    today?: string;
    now?: number;
    /** Read and hash every file whose stat is unchanged too (check: a stat can miss an edit). */
    verifyContent?: boolean;
    /** Told of the entries parsed, a chunk at a time, as they are parsed (and awaited); then `changes.parsed` keeps only their records (a first index of 100k entries must not hold every entry at once). */
    onParsed?: (chunk: ParsedEntry[]) => Promise<void> | void;
    /** Told how many of the files to parse are done (with `onParsed`: parsed and handed on), after each chunk. */
    onProgress?: (done: number, total: number) => void;
  } = {},
): Promise<{ data: StoredCatalogue; changes: CatalogueChanges }> {
  const files = options.files ?? (await listEntryFiles(layout));
  const now = options.now ?? Date.now();
  const changes: CatalogueChanges = { parsed: new Map(), removed: [], errors: [], changed: false };
  // In path order at the end: a position of `previous` kept as it is, or a new record.
  const entries: Array<{ path: string; entry: number | CatalogueRecord }> = [];
  const broken: BrokenFile[] = [];
  const toParse: Array<{ file: EntryFile; mtimeMs: number; size: number; before?: number | BrokenFile }> = [];
  const seen = new Set<string>();

  // Synchronous stats: for thousands of small files one tight loop beats as many thread-pool round trips. Kept in
  // typed arrays (NaN: gone since listed), not an object per file: nothing for the garbage collector to move.
  const mtimes = new Float64Array(files.length).fill(Number.NaN);
  const sizes = new Float64Array(files.length).fill(Number.NaN);
  for (const [i, file] of files.entries()) {
    let s: ReturnType<typeof statSync>;
    try {
      s = statSync(file.abs, { throwIfNoEntry: false });
    } catch {
      // A link that loops (ELOOP), a name too long, no permission: listed but not stat-able. Never the same as a
      // record, so it is read, and the reader says what is wrong with it (a committed `loop.md -> loop.md` stopped
      // every command).
      (mtimes[i] = -1), (sizes[i] = -1);
      continue;
    }
    if (s) (mtimes[i] = s.mtimeMs), (sizes[i] = s.size);
    // A link to nothing is listed, but has no stat: read like the above (the reader says it dangles), not skipped as gone.
    else if (lstatSync(file.abs, { throwIfNoEntry: false })?.isSymbolicLink()) (mtimes[i] = -1), (sizes[i] = -1);
  }
  // Nothing changed (the common case): the catalogue as it is, not one record decoded. A file written just before the
  // last refresh stat-ed it (racy: the same stat may hide a later write) is compared by content; while it is still in
  // its racy window and its bytes are the same, nothing changed either (right after a command wrote an entry, the next
  // one would otherwise take the full path below: ~50 ms at 10k entries).
  const racySame = (k: number, i: number) => now - mtimes[i]! < RACY_MS && !bytesChanged(files[i]!, previous.at(k));
  if (!options.verifyContent && previous.sameFiles(files, mtimes, sizes, racySame)) {
    return { data: previous, changes };
  }
  // `check` compares every record's hash: its lines are read whole.
  if (options.verifyContent) previous.loadLines();
  const knownBroken = new Map(previous.broken.map((b) => [b.path, b]));
  for (const [i, file] of files.entries()) {
    const mtimeMs = mtimes[i]!;
    const size = sizes[i]!;
    if (Number.isNaN(size)) continue;
    seen.add(file.rel);
    const k = previous.positionAt(file.rel);
    if (k !== undefined) {
      const racy = previous.racyAt(k);
      if (previous.mtimeAt(k) === mtimeMs && previous.sizeAt(k) === size && previous.stateAt(k) === file.state && !((racy || options.verifyContent) && bytesChanged(file, previous.at(k)))) {
        if (racy && now - mtimeMs >= RACY_MS) {
          changes.changed = true;
          entries.push({ path: file.rel, entry: withoutRacy(previous.at(k)) });
        } else entries.push({ path: file.rel, entry: k });
        continue;
      }
      toParse.push({ file, mtimeMs, size, before: k });
      continue;
    }
    const before = knownBroken.get(file.rel);
    // A file that never parsed has no hash to compare: after a racy stat (or for `check`) it is parsed again.
    if (before && before.mtimeMs === mtimeMs && before.size === size && before.state === file.state && !before.racy && !options.verifyContent) {
      broken.push(before);
      continue;
    }
    toParse.push({ file, mtimeMs, size, ...(before ? { before } : {}) });
  }
  previous.willRead(toParse.length);
  if (toParse.length) options.onProgress?.(0, toParse.length);
  // In chunks: what a chunk parsed is handed on (and can be dropped) before the next is read.
  for (let at = 0; at < toParse.length; at += PARSE_CHUNK) {
    // A large build allocates far more than it keeps: collect now and then so its peak memory stays that of what it keeps.
    if (at > 0 && at % (PARSE_CHUNK * 16) === 0) collectGarbage();
    const chunk = toParse.slice(at, at + PARSE_CHUNK);
    const results = await mapLimit(chunk, 16, (item) => readEntryFile(layout, item.file, options.today));
    const parsed: ParsedEntry[] = [];
    for (const [i, result] of results.entries()) {
      const { file, mtimeMs, size, before } = chunk[i]!;
      const racy = now - mtimeMs < RACY_MS ? { racy: true as const } : {};
      changes.changed = true;
      if (!result.entry) {
        changes.errors.push(...result.diagnostics);
        if (typeof before === "number") entries.push({ path: file.rel, entry: { ...previous.at(before), unparsed: result.diagnostics, mtimeMs, size, ...racy } });
        else broken.push({ path: file.rel, state: file.state, problems: result.diagnostics, mtimeMs, size, ...racy });
        continue;
      }
      const doc = entryDocument(result.entry);
      const record = { ...recordOf(result.entry, result.diagnostics, { mtimeMs, size }, doc), ...racy };
      entries.push({ path: file.rel, entry: record });
      parsed.push({ record, entry: result.entry, doc });
      changes.parsed.set(file.rel, options.onParsed ? { record } : { record, entry: result.entry, doc });
    }
    if (options.onParsed && parsed.length) await options.onParsed(parsed);
    options.onProgress?.(at + chunk.length, toParse.length);
  }
  for (let k = 0; k < previous.size; k++) {
    const path = previous.pathAt(k);
    if (!seen.has(path)) changes.removed.push(path);
  }
  for (const b of previous.broken) if (!seen.has(b.path)) changes.removed.push(b.path);
  if (changes.removed.length) changes.changed = true;
  entries.sort(byPath);
  broken.sort(byPath);
  return { data: previous.patched(entries.map((e) => e.entry), broken), changes };
}

function bytesChanged(file: EntryFile, before: CatalogueRecord): boolean {
  if (before.unparsed) return true;
  try {
    return !sameFileBytes(readFileSync(file.abs), before);
  } catch {
    return true;
  }
}

function withoutRacy<T extends { racy?: true }>(value: T): T {
  const { racy: _racy, ...rest } = value;
  return rest as T;
}

function byPath(a: { path: string }, b: { path: string }): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

/** The records that are entries now (parse today), first by path per id, and the ids claimed twice. */
export function liveRecords(data: CatalogueData): { byId: Map<string, CatalogueRecord>; duplicates: CatalogueRecord[] } {
  const byId = new Map<string, CatalogueRecord>();
  const duplicates: CatalogueRecord[] = [];
  for (const record of data.records) {
    if (record.unparsed) continue;
    if (byId.has(record.id)) duplicates.push(record);
    else byId.set(record.id, record);
  }
  return { byId, duplicates };
}
