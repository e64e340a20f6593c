/**
 * `.cairn/lint.json`: rule results kept between runs so `status` need not sanitize every entry and
 * resolve every anchor again. Content results are keyed by the file's hash (any path, any branch);
 * anchor results by the entry's path, with the signatures of every file their resolution read. The
 * whole cache belongs to one `key` (cairn's version and the sanitize settings): another key empties it.
 * A cache: a damaged file is ignored, concurrent writers each write a valid whole (last rename wins).
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import type { CairnConfig } from "../config.js";
import type { Diagnostic } from "../entry/diagnostic.js";
import { writeFileAtomic } from "../store/atomic.js";
import { cacheSeal } from "../store/cache-seal.js";
import type { Directive } from "./directives.js";
import { VERSION } from "../version.js";

const FORMAT = "cairn-lint-cache";
/** Bump when the stored shape changes: a cache of another version is ignored (and rewritten by the next run). */
const FORMAT_VERSION = 2;
const FILE = "lint.json";

/** Rule results over an entry's text: raw diagnostics (no policy applied) and its inline directives. */
export type ContentLint = { diagnostics: Diagnostic[]; directives: Directive[] };

/** Rule results over an entry's anchors and what they were computed from. */
export type AnchorLint = {
  /** The entry's file hash, `lastConfirmed` and latest fingerprints, joined. */
  key: string;
  /** `path\0mtimeMs:size` ("-" when missing) of every file the resolution read (interned: entries share files). */
  deps: string[];
  /** git's state token, when the resolution read the file listing or the rename history. */
  git?: string;
  /** The resolution read something no signature covers (another repository): always resolve again. */
  volatile?: true;
  diagnostics: Diagnostic[];
};

/** `partial`: holds only some entries' results (readLintLookup). */
export type LintCache = { key: string; content: Map<string, ContentLint>; anchors: Map<string, AnchorLint>; partial?: true };

/** The results of a clean entry (most of them): one shared value. */
export const CLEAN: ContentLint = Object.freeze({ diagnostics: [], directives: [] }) as ContentLint;

/**
 * On disk: one JSON object of flat lists — no object or tuple per entry, which is what parsing costs (10k
 * entries: a few milliseconds). `clean`: hashes of entries with no content problem; `content`: hash →
 * [diagnostics, directives] for the others; `deps`: the distinct `path\0signature` strings. Anchor results
 * are lists by position: `paths`, their `keys`, `uses` (per path: how many deps, then their indices in
 * `deps`), and sparse by position: `git` tokens, `volatile` positions, `diagnostics`.
 */
type Stored = {
  format: typeof FORMAT;
  version: typeof FORMAT_VERSION;
  key: string;
  clean: string[];
  content: Record<string, [Diagnostic[], Directive[]]>;
  deps: string[];
  paths: string[];
  keys: string[];
  uses: number[];
  git: Record<string, string>;
  volatile: number[];
  diagnostics: Record<string, Diagnostic[]>;
};


/**
 * The key of results computed by this version of cairn with these settings (rules change between versions), in
 * this `.cairn/` (its seal: a committed or copied cache could claim an entry with a secret is clean).
 */
export function lintKey(config: Pick<CairnConfig, "allowHosts" | "denyPatterns" | "repos">, cacheDir: string): string {
  const settings = JSON.stringify([VERSION, config.allowHosts, config.denyPatterns, config.repos, cacheSeal(cacheDir) ?? "unsealed"]);
  return createHash("sha256").update(settings).digest("hex").slice(0, 16);
}

/** The cache in `cacheDir` for `key`; empty when it is missing, damaged, of another version or of another key. */
export async function readLintCache(cacheDir: string, key: string): Promise<LintCache> {
  const stored = readStored(cacheDir, key);
  return (stored && entriesOf(key, stored)) ?? emptyCache(key);
}

/**
 * The cache file read once, for lookups of a few entries (the inject gate's candidates): `subset` turns only the
 * wanted results into a cache (not 10k of them). Such a cache is `partial`: writing it merges it into the file.
 * A long-lived process asks for a subset on every inject: the file's lists are indexed (and checked) once, on the
 * first, so each later subset costs its wanted entries, not a walk of every result.
 */
export async function readLintLookup(cacheDir: string, key: string): Promise<{ subset(want: Want): LintCache }> {
  const stored = readStored(cacheDir, key);
  let index: StoredIndex | null | undefined;
  return {
    subset: (want) => {
      if (index === undefined) index = (stored && indexOf(stored)) ?? null;
      return { ...((stored && index && wantedOf(key, stored, index, want)) ?? emptyCache(key)), partial: true };
    },
  };
}

/** Where each result sits in a stored cache: clean hashes as a set, each anchor path's run in `uses`. */
type StoredIndex = { clean: ReadonlySet<string>; runs: ReadonlyMap<string, { i: number; from: number; n: number }>; volatiles: ReadonlySet<number> };

/** The index of a stored cache; undefined when its anchor lists are malformed (then none of it is used). */
function indexOf(v: Stored): StoredIndex | undefined {
  const runs = new Map<string, { i: number; from: number; n: number }>();
  let at = 0;
  for (let i = 0; i < v.paths.length; i++) {
    const n = v.uses[at++];
    if (typeof n !== "number" || !Number.isInteger(n) || n < 0 || at + n > v.uses.length) return undefined;
    for (let j = at; j < at + n; j++) if (v.deps[v.uses[j] as number] === undefined) return undefined;
    runs.set(v.paths[i] as string, { i, from: at, n });
    at += n;
  }
  return at === v.uses.length ? { clean: new Set(v.clean), runs, volatiles: new Set(v.volatile) } : undefined;
}

/** The wanted results of an indexed stored cache; undefined when one of them is malformed. */
function wantedOf(key: string, v: Stored, index: StoredIndex, want: Want): LintCache | undefined {
  const cache = emptyCache(key);
  for (const hash of want.hashes) {
    if (index.clean.has(hash)) cache.content.set(hash, CLEAN);
    else if (Object.hasOwn(v.content, hash)) {
      const c = contentOf(v.content[hash]);
      if (!c) return undefined;
      cache.content.set(hash, c);
    }
  }
  for (const file of want.paths) {
    const run = index.runs.get(file);
    if (!run) continue;
    const deps = new Array<string>(run.n);
    for (let j = 0; j < run.n; j++) deps[j] = v.deps[v.uses[run.from + j] as number]!;
    const result = anchorOf(v, run.i, deps, index.volatiles);
    if (!result) return undefined;
    cache.anchors.set(file, result);
  }
  return cache;
}

/** A stored content result, checked; undefined when malformed. */
function contentOf(c: unknown): ContentLint | undefined {
  if (!isList(c) || !isList(c[0]) || !isList(c[1])) return undefined;
  return { diagnostics: c[0] as Diagnostic[], directives: c[1] as Directive[] };
}

/** The stored anchor result at position `i` (its dependencies read), checked; undefined when malformed. */
function anchorOf(v: Stored, i: number, deps: string[], volatiles: ReadonlySet<number>): AnchorLint | undefined {
  const token = v.git[i];
  const found = v.diagnostics[i] ?? [];
  if ((token !== undefined && !isString(token)) || !isList(found)) return undefined;
  // One shape for every result (no spread of optional parts): 10k of them are made by a full read.
  return { key: v.keys[i] as string, deps, git: token, volatile: volatiles.has(i) ? true : undefined, diagnostics: found as Diagnostic[] };
}

type Want = { hashes: ReadonlySet<string>; paths: ReadonlySet<string> };

function emptyCache(key: string): LintCache {
  return { key, content: new Map(), anchors: new Map() };
}

const isString = (v: unknown): v is string => typeof v === "string";
const isList = (v: unknown): v is unknown[] => Array.isArray(v);
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The stored cache of this version and key, its lists checked; undefined when missing, damaged or another's. */
function readStored(cacheDir: string, key: string): Stored | undefined {
  let v: Partial<Stored>;
  try {
    // One synchronous read, decoded at once (the promise API decodes 512 KB at a time through a string decoder).
    v = JSON.parse(readFileSync(path.join(cacheDir, FILE)).toString("utf8")) as Partial<Stored>;
  } catch {
    return undefined; // a cache: missing or damaged means empty
  }
  if (!isRecord(v) || v.format !== FORMAT || v.version !== FORMAT_VERSION || v.key !== key) return undefined;
  const { clean, content, deps, paths, keys, uses, git, volatile, diagnostics } = v;
  if (!isList(clean) || !clean.every(isString) || !isRecord(content) || !isList(deps) || !deps.every(isString)) return undefined;
  if (!isList(paths) || !paths.every(isString) || !isList(keys) || keys.length !== paths.length || !keys.every(isString) || !isList(uses)) return undefined;
  if (!isRecord(git) || !isList(volatile) || !isRecord(diagnostics)) return undefined;
  return v as Stored;
}

/** The whole cache a stored object describes, or undefined when any part of it is malformed (then none of it is used). */
function entriesOf(key: string, v: Stored): LintCache | undefined {
  const cache = emptyCache(key);
  for (const hash of v.clean) cache.content.set(hash, CLEAN);
  for (const [hash, stored] of Object.entries(v.content)) {
    const c = contentOf(stored);
    if (!c) return undefined;
    cache.content.set(hash, c);
  }
  const volatiles = new Set(v.volatile);
  const { paths, uses, deps } = v;
  let at = 0;
  for (let i = 0; i < paths.length; i++) {
    const n = uses[at++];
    if (typeof n !== "number" || !Number.isInteger(n) || n < 0 || at + n > uses.length) return undefined;
    const list = new Array<string>(n);
    for (let j = 0; j < n; j++) {
      const dep = deps[uses[at++] as number];
      if (dep === undefined) return undefined;
      list[j] = dep;
    }
    const result = anchorOf(v, i, list, volatiles);
    if (!result) return undefined;
    cache.anchors.set(paths[i] as string, result);
  }
  return at === uses.length ? cache : undefined;
}

/** Write the cache; a `partial` one (readLintLookup) is merged into what the file holds. Returns the cache as written (whole). */
export async function writeLintCache(cacheDir: string, cache: LintCache): Promise<LintCache> {
  if (cache.partial) {
    const whole = await readLintCache(cacheDir, cache.key);
    for (const [k, v] of cache.content) whole.content.set(k, v);
    for (const [k, v] of cache.anchors) whole.anchors.set(k, v);
    cache = whole;
  }
  const stored: Stored = { format: FORMAT, version: FORMAT_VERSION, key: cache.key, clean: [], content: {}, deps: [], paths: [], keys: [], uses: [], git: {}, volatile: [], diagnostics: {} };
  for (const [hash, c] of cache.content) {
    if (!c.diagnostics.length && !c.directives.length) stored.clean.push(hash);
    else stored.content[hash] = [c.diagnostics, c.directives];
  }
  const index = new Map<string, number>();
  for (const [file, a] of cache.anchors) {
    const i = stored.paths.push(file) - 1;
    stored.keys.push(a.key);
    stored.uses.push(a.deps.length);
    for (const d of a.deps) {
      let n = index.get(d);
      if (n === undefined) index.set(d, (n = stored.deps.push(d) - 1));
      stored.uses.push(n);
    }
    if (a.git !== undefined) stored.git[i] = a.git;
    if (a.volatile) stored.volatile.push(i);
    if (a.diagnostics.length) stored.diagnostics[i] = a.diagnostics;
  }
  await writeFileAtomic(path.join(cacheDir, FILE), JSON.stringify(stored));
  return cache;
}
