/**
 * The files verify steps search: the repository's tracked files (`git ls-files`), read at most once
 * per run, never through a symbolic link and never beyond a size limit. Not a git repository: every
 * file under the root (same ignores as anchors).
 */
import { execFile } from "node:child_process";
import { open, realpath } from "node:fs/promises";
import path from "node:path";
import { repoFiles } from "../anchors/repo-files.js";

export type SearchFiles = {
  /** Tracked files, repo-relative, sorted; the knowledge directory is left out (entries would match themselves). */
  list(): Promise<string[]>;
  /** The text of a file, or a reason it is not searched (too large, a link leaving the root, unreadable). */
  read(rel: string): Promise<{ text: string } | { skipped: string }>;
};

export function searchFiles(root: string, options: { exclude?: string; maxFileBytes: number }): SearchFiles {
  const absRoot = path.resolve(root);
  let listing: Promise<string[]> | undefined;
  let realRoot: Promise<string> | undefined;
  const cache = new Map<string, Promise<{ text: string } | { skipped: string }>>();
  const exclude = options.exclude ? `${options.exclude.replace(/\/+$/, "")}/` : undefined;

  const read = async (rel: string): Promise<{ text: string } | { skipped: string }> => {
    const abs = path.join(absRoot, rel);
    const base = await (realRoot ??= realpath(absRoot));
    let real: string;
    try {
      real = await realpath(abs);
    } catch {
      return { skipped: "missing" };
    }
    if (real !== path.join(base, rel)) {
      const inside = path.relative(base, real);
      if (inside.startsWith("..") || path.isAbsolute(inside)) return { skipped: "a link leaving the repository" };
    }
    let handle;
    try {
      handle = await open(real, "r");
    } catch {
      return { skipped: "unreadable" };
    }
    try {
      const info = await handle.stat();
      if (!info.isFile()) return { skipped: "not a file" };
      if (info.size > options.maxFileBytes) return { skipped: `larger than ${options.maxFileBytes} bytes` };
      const text = (await handle.readFile()).toString("utf8");
      return text.includes("\0") ? { skipped: "binary" } : { text };
    } finally {
      await handle.close();
    }
  };

  return {
    list: () =>
      (listing ??= gitLsFiles(absRoot)
        .catch(() => repoFiles(absRoot).listing())
        .then((files) => files.filter((f) => !exclude || !f.startsWith(exclude)).sort())),
    read(rel) {
      let cached = cache.get(rel);
      if (!cached) {
        cached = read(rel);
        cache.set(rel, cached);
      }
      return cached;
    },
  };
}

/** `git ls-files -z` in `root`: paths relative to it (git lists only files under the working directory). */
function gitLsFiles(root: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    execFile(
      "git",
      ["-c", "core.quotepath=off", "ls-files", "-z", "--cached", "--", "."],
      { cwd: root, encoding: "buffer", maxBuffer: 512 * 1024 * 1024, env: { ...process.env, LC_ALL: "C", GIT_OPTIONAL_LOCKS: "0" } },
      (error, stdout) => (error ? reject(error) : resolve(stdout.toString("utf8").split("\0").filter(Boolean))),
    );
  });
}
