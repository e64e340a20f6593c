/**
 * One repository root as anchors see it: a cached listing, path targets (realpath-checked), file
 * facts (lines, words, definitions) and a basename index. One instance serves a whole `cairn check`.
 */
import { open, realpath, stat } from "node:fs/promises";
import path from "node:path";
import picomatch from "picomatch";
import { glob } from "tinyglobby";
import { CairnError } from "../errors.js";
import { definitionsOf, type FileDefinitions } from "./definitions.js";
import { countLines } from "./signature.js";

export { countLines } from "./signature.js";

/** Directories glob anchors never look into. */
export const DEFAULT_ANCHOR_IGNORE: readonly string[] = ["**/node_modules/**", "**/.git/**", ".cairn/**", "dist/**"];

export type Target = { kind: "file" | "dir"; rel: string } | { kind: "missing" } | { kind: "outside"; real: string };

export type FileFacts =
  | { lines: string[]; lineCount: number; words?: Set<string>; definitions?: FileDefinitions | null }
  | { error: string };

export type RepoFiles = {
  root: string;
  listing(): Promise<string[]>;
  target(rel: string): Promise<Target>;
  facts(rel: string): Promise<FileFacts>;
  hasWord(rel: string, word: string): Promise<boolean>;
  definitions(rel: string): Promise<FileDefinitions | undefined>;
  glob(pattern: string): Promise<string[]>;
  under(dir: string): Promise<string[]>;
  /** Files whose name is `name` (sorted). */
  byBasename(name: string): Promise<string[]>;
};

export type RepoFilesOptions = {
  /** Files larger than this many bytes are not read: their facts are an error (generated, vendored or hostile files). Default: no limit. */
  maxFileBytes?: number;
};

export function repoFiles(root: string, ignore: readonly string[] = DEFAULT_ANCHOR_IGNORE, options: RepoFilesOptions = {}): RepoFiles {
  const absRoot = path.resolve(root);
  let realRoot: Promise<string> | undefined;
  let listing: Promise<string[]> | undefined;
  let basenames: Promise<Map<string, string[]>> | undefined;
  const targets = new Map<string, Promise<Target>>();
  const facts = new Map<string, Promise<FileFacts>>();
  const globs = new Map<string, Promise<string[]>>();

  const getRealRoot = (): Promise<string> =>
    (realRoot ??= realpath(absRoot).catch((cause: unknown) => {
      throw new CairnError("IO", `cannot resolve evidence anchors: the repository root ${absRoot} is not readable; expected an existing directory`, { cause });
    }));

  const getListing = (): Promise<string[]> =>
    (listing ??= glob(["**/*"], { cwd: absRoot, ignore: [...ignore], dot: true, followSymbolicLinks: false, expandDirectories: false }).then((files) => files.sort()));

  const memo = <T>(map: Map<string, Promise<T>>, key: string, make: () => Promise<T>): Promise<T> => {
    let cached = map.get(key);
    if (!cached) {
      cached = make();
      map.set(key, cached);
    }
    return cached;
  };

  const locate = async (rel: string): Promise<Target> => {
    const base = await getRealRoot();
    let real: string;
    try {
      real = await realpath(path.join(absRoot, rel));
    } catch {
      return { kind: "missing" };
    }
    if (!isInside(base, real)) return { kind: "outside", real };
    try {
      const info = await stat(real);
      // A FIFO, socket or device is no source file, and opening a FIFO would wait for a writer forever.
      if (!info.isDirectory() && !info.isFile()) return { kind: "missing" };
      return { kind: info.isDirectory() ? "dir" : "file", rel };
    } catch {
      return { kind: "missing" };
    }
  };

  const readFacts = async (rel: string): Promise<FileFacts> => {
    const target = await files.target(rel);
    if (target.kind !== "file") return { error: target.kind === "outside" ? "it leads outside the repository" : `it is not a file (${target.kind})` };
    try {
      const text = await readText(path.join(absRoot, rel), options.maxFileBytes);
      if (text === undefined) return { error: `it is larger than ${options.maxFileBytes} bytes, the limit for reading anchored files` };
      const lines = text.split(/\r?\n/);
      const lineCount = countLines(text);
      return { lines: lines.slice(0, Math.max(lineCount, 0)), lineCount };
    } catch (cause) {
      return { error: `it could not be read (${(cause as NodeJS.ErrnoException).code ?? String(cause)})` };
    }
  };

  const files: RepoFiles = {
    root: absRoot,
    listing: getListing,
    target: (rel) => memo(targets, rel, () => locate(rel)),
    facts: (rel) => memo(facts, rel, () => readFacts(rel)),
    async hasWord(rel, word) {
      const f = await files.facts(rel);
      if ("error" in f) return false;
      f.words ??= new Set(f.lines.join("\n").match(/[\w$]+/g));
      return f.words.has(word);
    },
    async definitions(rel) {
      const f = await files.facts(rel);
      if ("error" in f) return undefined;
      if (f.definitions === undefined) f.definitions = definitionsOf(rel, f.lines) ?? null;
      return f.definitions ?? undefined;
    },
    glob: (pattern) => memo(globs, pattern, () => getListing().then((all) => filterByGlob(all, pattern))),
    async under(dir) {
      const all = await getListing();
      return dir === "." ? all : prefixRange(all, `${dir}/`);
    },
    async byBasename(name) {
      basenames ??= getListing().then((all) => {
        const map = new Map<string, string[]>();
        for (const f of all) {
          const base = f.slice(f.lastIndexOf("/") + 1);
          const list = map.get(base);
          if (list) list.push(f);
          else map.set(base, [f]);
        }
        return map;
      });
      return (await basenames).get(name) ?? [];
    },
  };
  return files;
}

/** A file's text, or undefined when it holds more than `max` bytes (read through one handle, so a file growing meanwhile is caught too). */
async function readText(file: string, max: number | undefined): Promise<string | undefined> {
  const handle = await open(file, "r");
  try {
    if (max === undefined) return await handle.readFile("utf8");
    const { size } = await handle.stat();
    if (size > max) return undefined;
    // Sized by the stat (one byte more notices growth), not by the limit: most anchored files are a few KB.
    let buffer = Buffer.allocUnsafe(size + 1);
    let at = 0;
    for (;;) {
      if (at === buffer.length) {
        if (at > max) break;
        const bigger = Buffer.allocUnsafe(Math.min(max + 1, buffer.length * 2));
        buffer.copy(bigger, 0, 0, at);
        buffer = bigger;
      }
      const n = (await handle.read(buffer, at, buffer.length - at, at)).bytesRead;
      if (n === 0) break;
      at += n;
    }
    return at > max ? undefined : buffer.toString("utf8", 0, at);
  } finally {
    await handle.close();
  }
}

export function filterByGlob(files: readonly string[], pattern: string): string[] {
  const scan = picomatch.scan(pattern);
  // A plain path (no glob characters) is its own base: the file itself is a candidate, not only what is under it.
  const candidates = scan.base ? prefixRange(files, scan.isGlob ? `${scan.base}/` : scan.base) : files;
  const isMatch = picomatch(pattern, { dot: true });
  return candidates.filter((f) => isMatch(f));
}

/** The files of a sorted list that start with `prefix` (binary search for the first one). */
export function prefixRange(sorted: readonly string[], prefix: string): string[] {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < prefix) lo = mid + 1;
    else hi = mid;
  }
  let end = lo;
  while (end < sorted.length && sorted[end]!.startsWith(prefix)) end++;
  return sorted.slice(lo, end);
}

function isInside(root: string, target: string): boolean {
  const rel = path.relative(root, target);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}
