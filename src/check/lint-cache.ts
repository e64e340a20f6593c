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
 * On disk (one JSON object, no repeated keys per entry — 10k entries read in a few milliseconds):
 * `clean`: hashes of entries with no content problem; `content`: hash → [diagnostics, directives] for
 * the others; `deps`: the distinct `path\0signature` strings; `anchors`: path → [key, dep indices,
 * git token or "", volatile 0|1, diagnostics or 0].
 */
type Stored = {
  format: typeof FORMAT;
  key: string;
  clean: string[];
  content: Record<string, [Diagnostic[], Directive[]]>;
  deps: string[];
  anchors: Record<string, [string, number[], string, 0 | 1, Diagnostic[] | 0]>;
};


/**
 * The key of results computed by this version of cairn with these settings (rules change between versions), in
 * this `.cairn/` (its seal: a committed or copied cache could claim an entry with a secret is clean).
 */
export function lintKey(config: Pick<CairnConfig, "allowHosts" | "denyPatterns" | "repos">, cacheDir: string): string {
  const settings = JSON.stringify([VERSION, config.allowHosts, config.denyPatterns, config.repos, cacheSeal(cacheDir) ?? "unsealed"]);
  return createHash("sha256").update(settings).digest("hex").slice(0, 16);
}

export async function readLintCache(cacheDir: string, key: string): Promise<LintCache> {
  return entriesOf(key, await readStored(cacheDir, key));
}

/**
 * The cache file read once, for lookups of a few entries (the inject gate's candidates): `subset` turns only the
 * wanted results into a cache (not 10k of them). Such a cache is `partial`: writing it merges it into the file.
 */
export async function readLintLookup(cacheDir: string, key: string): Promise<{ subset(want: { hashes: ReadonlySet<string>; paths: ReadonlySet<string> }): LintCache }> {
  const stored = await readStored(cacheDir, key);
  return { subset: (want) => ({ ...entriesOf(key, stored, want), partial: true }) };
}

async function readStored(cacheDir: string, key: string): Promise<Stored | undefined> {
  try {
    // One read and one decode (the promise API decodes 512 KB at a time through a string decoder).
    const v = JSON.parse(readFileSync(path.join(cacheDir, FILE), "utf8")) as Partial<Stored>;
    if (v.format !== FORMAT || v.key !== key || !Array.isArray(v.clean) || !Array.isArray(v.deps) || typeof v.content !== "object" || typeof v.anchors !== "object" || !v.content || !v.anchors) return undefined;
    return v as Stored;
  } catch {
    // a cache: missing or damaged means empty
    return undefined;
  }
}

function entriesOf(key: string, v: Stored | undefined, want?: { hashes: ReadonlySet<string>; paths: ReadonlySet<string> }): LintCache {
  const cache: LintCache = { key, content: new Map(), anchors: new Map() };
  if (!v) return cache;
  const content = (hash: string, c: unknown) => {
    if (Array.isArray(c) && Array.isArray(c[0]) && Array.isArray(c[1])) cache.content.set(hash, { diagnostics: c[0], directives: c[1] });
  };
  const anchor = (file: string, a: unknown) => {
    if (!Array.isArray(a) || typeof a[0] !== "string" || !Array.isArray(a[1])) return;
    const list = (a[1] as unknown[]).map((i) => v.deps[i as number]);
    if (list.some((d) => typeof d !== "string")) return;
    cache.anchors.set(file, { key: a[0], deps: list as string[], ...(a[2] ? { git: a[2] as string } : {}), ...(a[3] === 1 ? { volatile: true as const } : {}), diagnostics: Array.isArray(a[4]) ? a[4] : [] });
  };
  if (want) {
    // A scan of the clean list per wanted hash: a few of them, against a Set of 10k built for each.
    for (const hash of want.hashes) {
      if (v.clean.includes(hash)) cache.content.set(hash, CLEAN);
      else if (Object.hasOwn(v.content, hash)) content(hash, v.content[hash]);
    }
    for (const file of want.paths) if (Object.hasOwn(v.anchors, file)) anchor(file, v.anchors[file]);
    return cache;
  }
  for (const hash of v.clean) if (typeof hash === "string") cache.content.set(hash, CLEAN);
  for (const [hash, c] of Object.entries(v.content)) content(hash, c);
  for (const [file, a] of Object.entries(v.anchors)) anchor(file, a);
  return cache;
}

/** Write the cache; a `partial` one (readLintLookup) is merged into what the file holds. */
export async function writeLintCache(cacheDir: string, cache: LintCache): Promise<void> {
  if (cache.partial) {
    const whole = await readLintCache(cacheDir, cache.key);
    for (const [k, v] of cache.content) whole.content.set(k, v);
    for (const [k, v] of cache.anchors) whole.anchors.set(k, v);
    cache = whole;
  }
  const stored: Stored = { format: FORMAT, key: cache.key, clean: [], content: {}, deps: [], anchors: {} };
  for (const [hash, c] of cache.content) {
    if (!c.diagnostics.length && !c.directives.length) stored.clean.push(hash);
    else stored.content[hash] = [c.diagnostics, c.directives];
  }
  const index = new Map<string, number>();
  for (const [file, a] of cache.anchors) {
    const ids = a.deps.map((d) => {
      let i = index.get(d);
      if (i === undefined) index.set(d, (i = stored.deps.push(d) - 1));
      return i;
    });
    stored.anchors[file] = [a.key, ids, a.git ?? "", a.volatile ? 1 : 0, a.diagnostics.length ? a.diagnostics : 0];
  }
  await writeFileAtomic(path.join(cacheDir, FILE), JSON.stringify(stored));
}
