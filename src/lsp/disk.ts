/**
 * The knowledge base as it is on disk, for the rules that look across entries (duplicate ids,
 * broken references) and for id completion: every entry file parsed once and kept until it
 * changes. A lint pass runs after every pause in typing, so re-reading and re-parsing every entry
 * each time is not an option; the listing and the files' stamps (mtime, size, inode) are checked
 * again when something says the entries changed — a watched-file event, or the knowledge
 * directories' own mtime, which moves on every save by rename (editors, git, cairn's atomic
 * writes) — and otherwise at most every `maxAgeMs`: stat-ing 10,000 files takes about a second on
 * a busy machine, too much to do while someone types.
 */
import { lstat } from "node:fs/promises";
import { CairnError } from "../errors.js";
import { listEntryFiles, mapLimit, readEntryFile, type EntryFile, type ReadResult } from "../store/files.js";
import type { Layout } from "../store/layout.js";

/** What is kept per file: the parse, without the bytes (only an open buffer needs them, for the per-entry rules). */
type Cached = { stamp: string; today: string; result: ReadResult };

export class DiskEntries {
  readonly #layout: Layout;
  readonly #maxAgeMs: number;
  readonly #cache = new Map<string, Cached>();
  #files: EntryFile[] = [];
  #checkedAt = Number.NEGATIVE_INFINITY;
  /** A problem with the knowledge directory itself (missing, not a directory, a link leaving the repository). */
  problem: string | undefined;

  constructor(layout: Layout, options: { maxAgeMs?: number } = {}) {
    this.#layout = layout;
    this.#maxAgeMs = options.maxAgeMs ?? 30_000;
  }

  /** Something changed on disk (a watcher event): check the listing and stamps on the next use. `abs` drops one file's parse at once. */
  invalidate(abs?: string): void {
    this.#checkedAt = Number.NEGATIVE_INFINITY;
    if (abs !== undefined) for (const f of this.#files) if (f.abs === abs) this.#cache.delete(f.rel);
  }

  /** The entry files on disk (active and archived), re-listed and re-stamped when stale. */
  async files(): Promise<EntryFile[]> {
    if (performance.now() - this.#checkedAt < this.#maxAgeMs) return this.#files;
    try {
      this.#files = await listEntryFiles(this.#layout);
      this.problem = undefined;
    } catch (error) {
      if (!(error instanceof CairnError)) throw error;
      this.#files = [];
      this.problem = error.message;
    }
    const present = new Set(this.#files.map((f) => f.rel));
    for (const rel of this.#cache.keys()) if (!present.has(rel)) this.#cache.delete(rel);
    await mapLimit(this.#files, 32, async (file) => {
      const cached = this.#cache.get(file.rel);
      if (cached && cached.stamp !== (await stampOf(file.abs))) this.#cache.delete(file.rel);
    });
    this.#checkedAt = performance.now();
    return this.#files;
  }

  /** One entry file parsed, from the cache when its stamp has not changed since it was read. */
  async read(file: EntryFile, today: string): Promise<ReadResult> {
    const cached = this.#cache.get(file.rel);
    if (cached && cached.today === today) return cached.result;
    const stamp = await stampOf(file.abs);
    const { bytes: _bytes, ...result } = await readEntryFile(this.#layout, file, today);
    this.#cache.set(file.rel, { stamp, today, result });
    return result;
  }
}

async function stampOf(abs: string): Promise<string> {
  try {
    const info = await lstat(abs);
    return `${info.mtimeMs}:${info.size}:${info.ino}`;
  } catch {
    return "missing";
  }
}
