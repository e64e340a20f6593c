/**
 * The files verify steps search: the repository's tracked files (`git ls-files`), read at most once
 * per run, never through a symbolic link leaving the root (tracked links are skipped, and each
 * directory's real path is checked once) and never beyond a size limit. Not a git repository: every
 * file under the root (same ignores as anchors). For steps over many files, every readable file is
 * joined into one corpus so a literal is searched in one pass instead of once per file.
 */
import { execFile } from "node:child_process";
import { closeSync, constants, fstatSync, openSync, readSync, realpathSync } from "node:fs";
import path from "node:path";
import { filterByGlob, repoFiles } from "../anchors/repo-files.js";

export type ReadResult = { text: string } | { skipped: string };

export type Corpus = {
  /** Every readable tracked file's UTF-8 bytes, joined with "\n\0\n" (Buffer search is about twice as fast as string search here). */
  bytes: Buffer;
  files: string[];
  /** Byte offset of each file in `bytes`. */
  starts: number[];
};

export type SearchFiles = {
  /** Tracked files, repo-relative, sorted; the knowledge directory is left out (entries would match themselves). */
  list(): Promise<string[]>;
  /** The tracked files matching a glob (cached per glob). */
  glob(pattern: string): Promise<string[]>;
  /** The text of a file, or a reason it is not searched (too large, a link leaving the root, unreadable, binary). */
  read(rel: string): ReadResult;
  /** All readable tracked files as one string, or undefined when they exceed `maxBytes`. */
  corpus(maxBytes: number): Promise<Corpus | undefined>;
};

export function searchFiles(root: string, options: { exclude?: string; maxFileBytes: number }): SearchFiles {
  const absRoot = path.resolve(root);
  let listing: Promise<string[]> | undefined;
  let corpus: Promise<Corpus | undefined> | undefined;
  const cache = new Map<string, ReadResult>();
  const globs = new Map<string, Promise<string[]>>();
  const dirs = new Map<string, boolean>();
  const exclude = options.exclude ? `${options.exclude.replace(/\/+$/, "")}/` : undefined;
  let realRoot: string | undefined;

  /** A directory is safe when its real path is the one expected under the real root (no link on the way). */
  const safeDir = (dir: string): boolean => {
    let ok = dirs.get(dir);
    if (ok === undefined) {
      try {
        realRoot ??= realpathSync(absRoot);
        ok = realpathSync(path.join(absRoot, dir)) === path.join(realRoot, dir);
      } catch {
        ok = false;
      }
      dirs.set(dir, ok);
    }
    return ok;
  };

  const readNow = (rel: string): ReadResult => {
    const dir = path.posix.dirname(rel);
    if (dir !== "." && !safeDir(dir)) return { skipped: "inside a link leaving the repository" };
    let fd: number;
    try {
      // Tracked symbolic links are left out of the listing; O_NOFOLLOW refuses one that appeared since.
      fd = openSync(path.join(absRoot, rel), constants.O_RDONLY | constants.O_NOFOLLOW);
    } catch {
      return { skipped: "unreadable" };
    }
    try {
      const info = fstatSync(fd);
      if (!info.isFile()) return { skipped: "not a file" };
      if (info.size > options.maxFileBytes) return { skipped: `larger than ${options.maxFileBytes} bytes` };
      const buffer = Buffer.allocUnsafe(info.size);
      let read = 0;
      while (read < info.size) {
        const n = readSync(fd, buffer, read, info.size - read, read);
        if (n <= 0) break;
        read += n;
      }
      const bytes = buffer.subarray(0, read);
      return bytes.includes(0) ? { skipped: "binary" } : { text: bytes.toString("utf8") };
    } catch {
      return { skipped: "unreadable" };
    } finally {
      closeSync(fd);
    }
  };

  const files: SearchFiles = {
    list: () =>
      (listing ??= gitLsFiles(absRoot)
        .catch(() => repoFiles(absRoot).listing())
        .then((all) => all.filter((f) => !exclude || !f.startsWith(exclude)).sort())),
    glob(pattern) {
      let cached = globs.get(pattern);
      if (!cached) {
        cached = files.list().then((all) => filterByGlob(all, pattern));
        globs.set(pattern, cached);
      }
      return cached;
    },
    read(rel) {
      let cached = cache.get(rel);
      if (!cached) {
        cached = readNow(rel);
        cache.set(rel, cached);
      }
      return cached;
    },
    corpus(maxBytes) {
      corpus ??= files.list().then((all) => {
        const parts: Buffer[] = [];
        const included: string[] = [];
        const starts: number[] = [];
        const separator = Buffer.from("\n\0\n");
        let offset = 0;
        for (const rel of all) {
          const read = files.read(rel);
          if ("skipped" in read) continue;
          const bytes = Buffer.from(read.text, "utf8");
          if (offset + bytes.length > maxBytes) return undefined;
          starts.push(offset);
          included.push(rel);
          parts.push(bytes, separator);
          offset += bytes.length + separator.length;
        }
        return { bytes: Buffer.concat(parts, offset), files: included, starts };
      });
      return corpus;
    },
  };
  return files;
}

/** `git ls-files -s -z` in `root`: regular tracked files relative to it (links and submodules left out). */
function gitLsFiles(root: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    execFile(
      "git",
      ["-c", "core.quotepath=off", "ls-files", "-s", "-z", "--", "."],
      { cwd: root, encoding: "buffer", maxBuffer: 512 * 1024 * 1024, env: { ...process.env, LC_ALL: "C", GIT_OPTIONAL_LOCKS: "0" } },
      (error, stdout) => {
        if (error) return reject(error);
        const out: string[] = [];
        for (const record of stdout.toString("utf8").split("\0")) {
          // "<mode> <object> <stage>\t<path>"; 120000 = symbolic link, 160000 = submodule.
          const tab = record.indexOf("\t");
          if (tab === -1 || !record.startsWith("100")) continue;
          out.push(record.slice(tab + 1));
        }
        resolve([...new Set(out)]);
      },
    );
  });
}
