/** Open the search index with the configured embedder; refresh it under the writer lock when possible. */
import { vectorWeightOf, type CairnConfig } from "../config.js";
import { isCairnError } from "../errors.js";
import type { Layout } from "../store/layout.js";
import type { Embedder } from "./embedder.js";
import { acquireIndexLock } from "./lock.js";
import type { Progress, SearchIndex, SyncReport } from "./search-index.js";

/** Why a lock file cannot be written that no retry fixes: no space, over quota, a file size limit, read-only, refused. */
const UNWRITABLE = new Set(["ENOSPC", "EDQUOT", "EFBIG", "EROFS", "EACCES", "EPERM"]);

export type IndexRun = { index: SearchIndex; report: SyncReport | null; saved: boolean; warnings: string[] };

/**
 * Open the index. Vectors are part of it only when the embedder has a ranking weight (config
 * `embedder.weight` > 0): with weight 0 nothing is embedded for search and the model is never loaded here.
 */
export async function openSearchIndex(layout: Layout, config: CairnConfig, options: { rebuild?: boolean; embedder?: Embedder | null } = {}): Promise<SearchIndex> {
  const { SearchIndex } = await import("./search-index.js");
  const opening = { repos: config.repos, ...(options.rebuild ? { rebuild: true } : {}) };
  if (vectorWeightOf(config) <= 0) return SearchIndex.open(layout, null, opening);
  const { createEmbedder, usableEmbedder } = await import("./embedders/index.js");
  const configured = options.embedder !== undefined ? options.embedder : createEmbedder(config.embedder, { root: layout.root });
  // A model whose size is unknown (missing model directory) is probed once: unusable → lexical only, one warning.
  const { embedder, warning } = await usableEmbedder(configured);
  const index = await SearchIndex.open(layout, embedder, opening);
  if (warning) index.warnings.push(warning);
  return index;
}

/**
 * Refresh `index` from the files and save it, holding the writer lock. When another process holds
 * the lock (a running `cairn watch` keeps the index fresh), the in-memory refresh still happens but
 * nothing is written, unless `wait` asks to wait for the lock. `build`: also build the lexical
 * documents owed (changed entries, changed anchored sources) instead of leaving them to the next search.
 */
export async function refreshAndSave(index: SearchIndex, options: { wait?: boolean; onProgress?: Progress; embedLimit?: number; verifyContent?: boolean; build?: boolean } = {}): Promise<IndexRun> {
  const warnings: string[] = [];
  let release: (() => Promise<void>) | undefined;
  try {
    release = await acquireIndexLock(index.layout.cache, { wait: options.wait ?? false, root: index.layout.root, onWarning: (message) => warnings.push(message) });
  } catch (error) {
    // Another process (usually `cairn watch` or the MCP server) is the writer and keeps the saved
    // index fresh; refreshing this in-memory copy without saving is correct and needs no warning.
    if (!isCairnError(error) || options.wait) throw error;
    // A full disk, a quota or a read-only checkout: the saved index is a cache, so a read still gets its answer from
    // this in-memory refresh; `cairn index` (which waits, to write) still fails.
    const unwritable = error.code === "IO" && UNWRITABLE.has((error.cause as NodeJS.ErrnoException | undefined)?.code ?? "");
    if (error.code !== "LOCKED" && !unwritable) throw error;
    if (unwritable) warnings.push(`${error.message.replace(/; check that the directory is writable$/, "")}: the index was refreshed in memory and not saved`);
  }
  try {
    const { wait: _wait, build, ...refresh } = options;
    const report = await index.refresh(refresh);
    // `cairn index` builds the lexical documents a catalogue-only refresh would leave to the next search.
    if (build && index.owes) await index.loadLexical();
    const saved = release ? await index.save() : false;
    return { index, report, saved, warnings: [...warnings, ...report.warnings] };
  } finally {
    await release?.();
  }
}
