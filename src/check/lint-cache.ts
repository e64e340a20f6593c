/**
 * `.cairn/lint.json`: rule results kept between runs so `status` need not sanitize every entry and
 * resolve every anchor again. Content results are keyed by the file's hash (any path, any branch);
 * anchor results by the entry's path, with the signatures of every file their resolution read. The
 * whole cache belongs to one `key` (cairn's version and the sanitize settings): another key empties it.
 * A cache: a damaged file is ignored, concurrent writers each write a valid whole (last rename wins).
 */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import type { CairnConfig } from "../config.js";
import type { Diagnostic } from "../entry/diagnostic.js";
import { writeFileAtomic } from "../store/atomic.js";
import { cacheSeal } from "../store/cache-seal.js";
import type { Directive } from "./directives.js";

const FORMAT = "cairn-lint-cache";
const FILE = "lint.json";

/** Rule results over an entry's text: raw diagnostics (no policy applied) and its inline directives. */
export type ContentLint = { diagnostics: Diagnostic[]; directives: Directive[] };

/** Rule results over an entry's anchors and what they were computed from. */
export type AnchorLint = {
  /** The entry's file hash, `lastConfirmed` and latest fingerprints, joined. */
  key: string;
  /** Repo-relative path → `mtimeMs:size` ("-" when missing) of every file the resolution read. */
  deps: Record<string, string>;
  /** git's state token, when the resolution read the file listing or the rename history. */
  git?: string;
  /** The resolution read something no signature covers (another repository): always resolve again. */
  volatile?: true;
  diagnostics: Diagnostic[];
};

export type LintCache = { key: string; content: Record<string, ContentLint>; anchors: Record<string, AnchorLint> };

const VERSION = (createRequire(import.meta.url)("../../package.json") as { version: string }).version;

/**
 * The key of results computed by this version of cairn with these settings (rules change between versions), in
 * this `.cairn/` (its seal: a committed or copied cache could claim an entry with a secret is clean).
 */
export function lintKey(config: Pick<CairnConfig, "allowHosts" | "denyPatterns" | "repos">, cacheDir: string): string {
  const settings = JSON.stringify([VERSION, config.allowHosts, config.denyPatterns, config.repos, cacheSeal(cacheDir) ?? "unsealed"]);
  return createHash("sha256").update(settings).digest("hex").slice(0, 16);
}

export async function readLintCache(cacheDir: string, key: string): Promise<LintCache> {
  const empty: LintCache = { key, content: {}, anchors: {} };
  try {
    const value = JSON.parse(await readFile(path.join(cacheDir, FILE), "utf8")) as Partial<LintCache> & { format?: unknown };
    if (value.format !== FORMAT || value.key !== key || typeof value.content !== "object" || typeof value.anchors !== "object" || !value.content || !value.anchors) return empty;
    return { key, content: value.content, anchors: value.anchors };
  } catch {
    return empty;
  }
}

export async function writeLintCache(cacheDir: string, cache: LintCache): Promise<void> {
  await writeFileAtomic(path.join(cacheDir, FILE), JSON.stringify({ format: FORMAT, ...cache }));
}
