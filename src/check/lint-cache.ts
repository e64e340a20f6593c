/**
 * `.cairn/lint/`: rule results kept between runs so `status` need not sanitize every entry and
 * resolve every anchor again. Content results are keyed by the file's hash, whether it is active or archived, and its
 * file name (`contentKey`: the name is the id a prompt shows, so the rules read it; any directory, any branch);
 * anchor results by the entry's path, with the signatures of every file their resolution read. The
 * whole cache belongs to one `key` (cairn's version and the sanitize settings): another key empties it.
 *
 * The results are spread over SHARDS files by a hash of their key, so a command about one entry (`show`,
 * the inject gate's candidates) reads and writes a few small files, not every entry's results (at 10k
 * entries, parsing the one 1.8 MB file cost `show` ~50 ms), and a write rewrites only the shards whose
 * results changed. A cache: a damaged shard is ignored (its results are computed again), concurrent
 * writers each write valid shards (last rename wins; every result is checked against its file anyway).
 */
import { createHash } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import type { CairnConfig } from "../config.js";
import type { Diagnostic } from "../entry/diagnostic.js";
import { writeFileAtomic } from "../store/atomic.js";
import { cacheSeal } from "../store/cache-seal.js";
import type { Directive } from "./directives.js";
import { VERSION } from "../version.js";

const FORMAT = "cairn-lint-cache";
/** Bump when the stored shape changes: a cache of another version is ignored (and rewritten by the next run). */
const FORMAT_VERSION = 4;
const DIR = "lint";
/** Shards: at 10k entries ~160 results (~30 KB) each, at 100k ~1,600. */
const SHARDS = 64;
/** Where versions before 0.3.1 kept the whole cache in one file: removed by the next write. */
const LEGACY_FILE = "lint.json";

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

/** `partial`: holds only some entries' results (readLintLookup); writing it merges it into the shards it touches. */
export type LintCache = { key: string; content: Map<string, ContentLint>; anchors: Map<string, AnchorLint>; partial?: true };

/**
 * The key of an entry file's content results: its bytes, where it lives (active or archived) and its file name. The rules
 * read all three (the name is its id unless `id:` sets one, and heads it in every prompt): the same bytes renamed to
 * `ignore-all-previous-instructions.md` must be linted again, not pass as the clean file they were (format 3 did that).
 */
export function contentKey(file: { fileHash: string; state: string; path: string }): string {
  return `${file.fileHash}|${file.state === "archived" ? "a" : ""}|${file.path.slice(file.path.lastIndexOf("/") + 1)}`;
}

/** The results of a clean entry (most of them): one shared value. */
export const CLEAN: ContentLint = Object.freeze({ diagnostics: [], directives: [] }) as ContentLint;

/**
 * On disk, per shard: one JSON object of flat lists — no object or tuple per entry, which is what parsing costs (10k
 * entries: a few milliseconds). `clean`: content keys of entries with no content problem; `content`: content key →
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

/** The shard that holds the result of `key` (a content key or an entry's path): FNV-1a over its UTF-16 units. */
function shardOf(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return (h >>> 0) % SHARDS;
}

/** The directory of the shards in a `.cairn/`. */
export const lintCacheDir = (cacheDir: string): string => path.join(cacheDir, DIR);

const shardFile = (cacheDir: string, shard: number): string => path.join(lintCacheDir(cacheDir), `${String(shard).padStart(2, "0")}.json`);

/** The cache in `cacheDir` for `key`: every shard's results; a missing, damaged or another version's or key's shard holds none. */
export async function readLintCache(cacheDir: string, key: string): Promise<LintCache> {
  const cache = emptyCache(key);
  for (let shard = 0; shard < SHARDS; shard++) {
    const stored = readStored(readShard(cacheDir, shard), key);
    const found = stored && entriesOf(key, stored);
    if (!found) continue;
    for (const [k, v] of found.content) cache.content.set(k, v);
    for (const [k, v] of found.anchors) cache.anchors.set(k, v);
  }
  return cache;
}

/**
 * Lookups of a few entries (the inject gate's candidates, `show`): `subset` reads only the shards that hold the wanted
 * results and turns only those into a cache. Such a cache is `partial`: writing it merges it into its shards. A
 * long-lived process asks for a subset on every inject: each shard is read and indexed (and checked) once, and what
 * its gate computes is `absorb`ed, so later subsets come from memory.
 */
export async function readLintLookup(cacheDir: string, key: string): Promise<{ subset(want: Want): LintCache; absorb(cache: LintCache): void }> {
  const shards = new Map<number, LintCache>();
  const shard = (n: number): LintCache => {
    let found = shards.get(n);
    if (!found) {
      const stored = readStored(readShard(cacheDir, n), key);
      shards.set(n, (found = (stored && entriesOf(key, stored)) ?? emptyCache(key)));
    }
    return found;
  };
  return {
    subset: (want) => {
      const cache: LintCache = { ...emptyCache(key), partial: true };
      for (const hash of want.contents) {
        const c = shard(shardOf(hash)).content.get(hash);
        if (c) cache.content.set(hash, c);
      }
      for (const file of want.paths) {
        const a = shard(shardOf(file)).anchors.get(file);
        if (a) cache.anchors.set(file, a);
      }
      return cache;
    },
    absorb: (cache) => {
      if (cache.key !== key) return;
      for (const [k, v] of cache.content) shard(shardOf(k)).content.set(k, v);
      for (const [k, v] of cache.anchors) shard(shardOf(k)).anchors.set(k, v);
    },
  };
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

/** The results wanted: content keys (`contentKey`) and entry paths (anchor results). */
type Want = { contents: ReadonlySet<string>; paths: ReadonlySet<string> };

function emptyCache(key: string): LintCache {
  return { key, content: new Map(), anchors: new Map() };
}

const isString = (v: unknown): v is string => typeof v === "string";
const isList = (v: unknown): v is unknown[] => Array.isArray(v);
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** A shard file's text; undefined when it cannot be read (missing: an empty shard). */
function readShard(cacheDir: string, shard: number): string | undefined {
  try {
    // One synchronous read, decoded at once (the promise API decodes 512 KB at a time through a string decoder).
    return readFileSync(shardFile(cacheDir, shard)).toString("utf8");
  } catch {
    return undefined;
  }
}

/** A stored shard of this version and key, its lists checked; undefined when missing, damaged or another's. */
function readStored(text: string | undefined, key: string): Stored | undefined {
  if (text === undefined) return undefined;
  let v: Partial<Stored>;
  try {
    v = JSON.parse(text) as Partial<Stored>;
  } catch {
    return undefined; // a cache: damaged means empty
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

/**
 * Write the cache: each shard whose results differ from its file is rewritten (atomically), the others are left as
 * they are. A `partial` cache (readLintLookup) is merged into the shards it touches; the others are not read. Returns
 * `cache`.
 */
export async function writeLintCache(cacheDir: string, cache: LintCache): Promise<LintCache> {
  const parts = new Map<number, LintCache>();
  const part = (n: number): LintCache => {
    let found = parts.get(n);
    if (!found) {
      if (cache.partial) {
        const stored = readStored(readShard(cacheDir, n), cache.key);
        found = (stored && entriesOf(cache.key, stored)) ?? emptyCache(cache.key);
      } else found = emptyCache(cache.key);
      parts.set(n, found);
    }
    return found;
  };
  if (!cache.partial) for (let n = 0; n < SHARDS; n++) part(n);
  for (const [k, v] of cache.content) part(shardOf(k)).content.set(k, v);
  for (const [k, v] of cache.anchors) part(shardOf(k)).anchors.set(k, v);
  await mkdir(lintCacheDir(cacheDir), { recursive: true });
  for (const [n, shard] of parts) {
    const text = JSON.stringify(storedOf(shard));
    if (readShard(cacheDir, n) !== text) await writeFileAtomic(shardFile(cacheDir, n), text);
  }
  rmSync(path.join(cacheDir, LEGACY_FILE), { force: true });
  return cache;
}

/** One shard's results as stored: flat lists, dependencies interned. */
function storedOf(cache: LintCache): Stored {
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
  return stored;
}
