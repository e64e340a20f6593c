/** List and read entry files safely: an entry file is a regular file (never a symbolic link), size checked before reading. */
import { lstatSync, readFileSync, statSync } from "node:fs";
import { readdir, realpath } from "node:fs/promises";
import path from "node:path";
import { diagnostic, type Diagnostic } from "../entry/diagnostic.js";
import { CairnError } from "../errors.js";
import { MAX_ENTRY_BYTES } from "../entry/file-facts.js";
import type { Entry, EntryState } from "../entry/types.js";
import { relativePath, type Layout } from "./layout.js";
import { requireArchiveDir, requireKnowledgeDir } from "./require.js";

export type EntryFile = { abs: string; rel: string; state: EntryState };

/** True for a file name that holds an entry: `*.md`, not hidden, not a README. */
export function isEntryFileName(name: string): boolean {
  const lower = name.toLowerCase();
  return lower.endsWith(".md") && !name.startsWith(".") && lower !== "readme.md";
}

/**
 * Entry files directly in knowledge/ (active) and knowledge/archive/ (archived), sorted by path.
 * Throws CairnError USAGE when the knowledge dir is missing or either directory is a file,
 * UNSAFE_PATH when one is reached through a link leaving the repository, and IO when one cannot be listed.
 */
export async function listEntryFiles(layout: Layout): Promise<EntryFile[]> {
  await requireKnowledgeDir(layout);
  await requireArchiveDir(layout);
  const out: EntryFile[] = [];
  for (const [dir, state] of [[layout.knowledge, "active"], [layout.archive, "archived"]] as const) {
    let names: string[];
    try {
      names = await readdir(dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
      throw unlistable(layout, dir, error);
    }
    // One path computation per directory, not per file: at 100k entries path.relative per file is measurable.
    const absDir = dir + path.sep;
    const relDir = `${relativePath(layout, dir)}/`;
    for (const name of names) {
      if (!isEntryFileName(name)) continue;
      out.push({ abs: absDir + name, rel: relDir + name, state });
    }
  }
  return out.sort((a, b) => byPathOrder(a.rel, b.rel));
}

/** A knowledge directory that exists but cannot be listed (no read permission): what it is, why, and what to do. */
function unlistable(layout: Layout, dir: string, error: unknown): CairnError {
  const code = (error as NodeJS.ErrnoException).code;
  const rel = relativePath(layout, dir);
  const denied = code === "EACCES" || code === "EPERM";
  const why = denied ? `permission denied (${code}); give your user read access (e.g. chmod u+rx ${rel}) and retry` : (error as Error).message;
  return new CairnError("IO", `cannot list the entries in ${rel}/: ${why}`, { cause: error });
}

/** Classify a path given on the command line or by the watcher. Undefined when it is not an entry location. */
export function entryFileFor(layout: Layout, file: string): EntryFile | undefined {
  const abs = path.resolve(layout.root, file);
  if (!abs.toLowerCase().endsWith(".md")) return undefined;
  const dir = path.dirname(abs);
  const state: EntryState | undefined = dir === layout.knowledge ? "active" : dir === layout.archive ? "archived" : undefined;
  if (!state) return undefined;
  return { abs, rel: relativePath(layout, abs), state };
}

export type ReadResult = { entry?: Entry; diagnostics: Diagnostic[]; bytes?: Uint8Array };

/** The entry parser (and the YAML library under it), loaded when the first file is parsed: most commands parse none. */
let parser: Promise<typeof import("../entry/parse.js")> | undefined;

/**
 * Read one entry file's bytes with the checks every read makes: a regular file, not a symbolic link (one leaving the
 * knowledge directory is `symlink-outside`, any other `entry-symlink`), under the size limit. Problems (and an
 * unreadable file) become diagnostics.
 */
export function readEntryBytes(layout: Layout, file: EntryFile): Promise<{ bytes: Buffer } | { diagnostics: Diagnostic[] }> {
  return readChecked(layout, file, async (bytes) => ({ bytes }));
}

/** Read and parse one entry file; problems (symlink escape, too large, unreadable) become diagnostics. */
export function readEntryFile(layout: Layout, file: EntryFile, today?: string): Promise<ReadResult> {
  return readChecked(layout, file, (bytes) => parseEntryBytes(file, bytes, today));
}

/** Parse bytes read from `file` (readEntryBytes) as an entry. */
export async function parseEntryBytes(file: EntryFile, bytes: Buffer, today?: string): Promise<ReadResult> {
  const { parseEntry } = await (parser ??= import("../entry/parse.js"));
  return { ...parseEntry(bytes, { file: file.rel, state: file.state, ...(today ? { today } : {}) }), bytes };
}

async function readChecked<T>(layout: Layout, file: EntryFile, use: (bytes: Buffer) => Promise<T>): Promise<T | { diagnostics: Diagnostic[] }> {
  const problem = (rule: string, message: string) => ({ diagnostics: [diagnostic(file.rel, rule, "error", message)] });
  try {
    // Synchronous calls: an entry is small, and each awaited call costs a thread-pool round trip
    // (five per file) that a warm inject of five entries would wait on.
    const info = lstatSync(file.abs);
    if (info.isSymbolicLink()) {
      const target = await realpath(file.abs).catch(() => undefined);
      const knowledgeReal = await realpath(layout.knowledge).catch(() => layout.knowledge);
      if (!target || !isInside(knowledgeReal, target)) {
        return problem("symlink-outside", `symbolic link points outside ${relativePath(layout, layout.knowledge)}/ (${target ?? "dangling"}); entries must be regular files inside the knowledge directory`);
      }
    } else if (!info.isFile()) {
      return problem("not-a-file", "expected a regular markdown file");
    }
    const target = info.isSymbolicLink() ? statSync(file.abs) : info;
    // A link to a FIFO or a device inside the knowledge directory would block the (synchronous) read below forever.
    if (!target.isFile()) return problem("not-a-file", "expected a regular markdown file (this link points at something else)");
    if (info.isSymbolicLink()) {
      // git stores the link, not the text: a pull request adding it, or editing its target, never shows in a diff of
      // entries what a prompt would get. So an entry is a regular file; links to directories keep working.
      const to = relativePath(layout, await realpath(file.abs));
      return problem("entry-symlink", `is a symbolic link to ${to}; expected a regular file: git stores only the link, so no diff of the entry shows the text a prompt would get — replace the link with the file itself (e.g. mv ${to} ${file.rel})`);
    }
    const size = target.size;
    if (size > MAX_ENTRY_BYTES) {
      return problem("file-too-large", `file is ${(size / 1024 / 1024).toFixed(1)} MB; entries must be under ${MAX_ENTRY_BYTES / 1024} KB of markdown. It was not parsed.`);
    }
    return await use(readFileSync(file.abs));
  } catch (error) {
    return problem("file-unreadable", `cannot read file: ${(error as Error).message}`);
  }
}

const collator = new Intl.Collator();

/** The order entry files are listed in (the locale order `localeCompare` gives, through one shared collator: ~10× faster). */
export function byPathOrder(a: string, b: string): number {
  return collator.compare(a, b);
}

export function isInside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

/** A gate that lets at most `limit` calls of `run` work at once; the others wait their turn in order. */
export function limiter(limit: number): <T>(work: () => Promise<T>) => Promise<T> {
  let active = 0;
  // A queue read from `head` (status queues one call per entry: Array#shift on 100k waiters is quadratic).
  let waiting: Array<(() => void) | undefined> = [];
  let head = 0;
  const next = () => {
    if (head >= waiting.length) return;
    const resolve = waiting[head];
    waiting[head++] = undefined;
    if (head === waiting.length) (waiting = []), (head = 0);
    else if (head >= 4_096 && head * 2 >= waiting.length) (waiting = waiting.slice(head)), (head = 0);
    resolve!();
  };
  return async (work) => {
    if (active >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    active++;
    try {
      return await work();
    } finally {
      active--;
      next();
    }
  };
}

/** Run `fn` over items with bounded concurrency, preserving order. */
export async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
