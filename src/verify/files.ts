/**
 * The files verify steps search: the repository's tracked files (`git ls-files`), read at most once
 * per run, never through a symbolic link leaving the root (tracked links are skipped, and each
 * directory's real path is checked once) and never beyond a size limit. Not a git repository: every
 * file under the root (same ignores as anchors). Files are kept as bytes and decoded only when a
 * pattern is tested on them: most files of a run are only searched for literals (multi-search.ts),
 * which works on bytes.
 */
import { execFile } from "node:child_process";
import { isAscii, isUtf8 } from "node:buffer";
import { closeSync, constants, fstatSync, openSync, readSync, realpathSync } from "node:fs";
import path from "node:path";
import { filterByGlob, repoFiles } from "../anchors/repo-files.js";

export type ReadResult = { text: string } | { skipped: string };

/** A file's bytes as read, or why it is not searched. */
export type BytesResult = { bytes: Buffer } | { skipped: string };

export type SearchFiles = {
  /** Tracked files, repo-relative, sorted; the knowledge directory is left out (entries would match themselves). */
  list(): Promise<string[]>;
  /** The tracked files matching a glob (cached per glob). */
  glob(pattern: string): Promise<string[]>;
  /** The bytes of a file, or a reason it is not searched (too large, a link leaving the root, unreadable, binary). */
  bytes(rel: string): BytesResult;
  /** The text of a file (decoded once, on first use), or the reason it is not searched. */
  read(rel: string): ReadResult;
  /** The UTF-8 encoding of a searchable file's text: its bytes when they are valid UTF-8 (almost always), else its decoded text re-encoded (invalid sequences as U+FFFD, as `read` sees them). */
  textBytes(rel: string): Buffer | undefined;
  /** The length of a searchable file's text in UTF-16 code units (`read(rel).text.length`), decoding only files that are not ASCII. */
  textLength(rel: string): number;
};

export function searchFiles(root: string, options: { exclude?: string; maxFileBytes: number }): SearchFiles {
  const absRoot = path.resolve(root);
  let listing: Promise<string[]> | undefined;
  const raw = new Map<string, BytesResult>();
  const texts = new Map<string, string>();
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

  const readNow = (rel: string): BytesResult => {
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
      return bytes.includes(0) ? { skipped: "binary" } : { bytes };
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
    bytes(rel) {
      let cached = raw.get(rel);
      if (!cached) {
        cached = readNow(rel);
        raw.set(rel, cached);
      }
      return cached;
    },
    read(rel) {
      const got = files.bytes(rel);
      if ("skipped" in got) return got;
      let text = texts.get(rel);
      if (text === undefined) {
        text = got.bytes.toString("utf8");
        texts.set(rel, text);
      }
      return { text };
    },
    textBytes(rel) {
      const got = files.bytes(rel);
      if ("skipped" in got) return undefined;
      if (isUtf8(got.bytes)) return got.bytes;
      const read = files.read(rel);
      return "text" in read ? Buffer.from(read.text, "utf8") : undefined;
    },
    textLength(rel) {
      const got = files.bytes(rel);
      if ("skipped" in got) return 0;
      if (isAscii(got.bytes)) return got.bytes.length;
      const read = files.read(rel);
      return "text" in read ? read.text.length : 0;
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
