/**
 * Whether git tracks a file: what tells a local file cairn wrote (a change log in `knowledge/.pending/`, gitignored
 * by `cairn init`) from one that arrived in a commit, which cairn must never act on.
 */
import { execFile } from "node:child_process";
import path from "node:path";

/**
 * True when the git repository holding `root` tracks `file` (absolute, inside `root`), in its index or as committed.
 * False when it does not, when `root` is in no repository, and when git cannot be run: then nothing is known.
 */
export async function isTrackedByGit(root: string, file: string): Promise<boolean> {
  return (await trackedByGit(root, file)).length > 0;
}

/**
 * The files at or under `dir` (absolute, inside `root`: a directory, or one file) that the git repository holding
 * `root` tracks, absolute and sorted.
 * Empty when there are none, when `root` is in no repository, and when git cannot be run.
 */
export async function trackedByGit(root: string, dir: string): Promise<string[]> {
  const out = await git(root, ["ls-files", "-z", "--", path.relative(root, dir) || "."]);
  return out === undefined ? [] : out.split("\0").filter(Boolean).map((f) => path.join(root, f)).sort();
}

/**
 * What git does not have of `file` (absolute, inside `root`): "untracked" (never added), "modified" (changed since the
 * last commit, staged or not), or undefined when git has all of it, when `root` is in no repository, and when git
 * cannot be run (then nothing is known).
 */
export async function uncommitted(root: string, file: string): Promise<"untracked" | "modified" | undefined> {
  const out = await git(root, ["status", "--porcelain=v1", "-z", "--untracked-files=all", "--", path.relative(root, file)]);
  return !out ? undefined : out.startsWith("??") ? "untracked" : "modified";
}

/**
 * True when git tracks `file` (absolute) and nothing changed it since git wrote it: what is there is what a commit
 * brought (compared after git's own conversions, so a committed `eol=crlf` or `working-tree-encoding` changes nothing).
 * False when git does not track it, when it changed since, when it is in no repository and when git cannot be run.
 * One `git ls-files` in the file's directory; git compares the file's stat with its index and reads the file only
 * when they differ.
 */
export async function asCommitted(file: string): Promise<boolean> {
  const out = await git(path.dirname(file), ["ls-files", "-z", "--cached", "--modified", "-t", "--", path.basename(file)]);
  // `-t` tags each line: "C " for a tracked file that differs from git's copy, another letter for a tracked one.
  const lines = out?.split("\0").filter(Boolean) ?? [];
  return lines.length > 0 && !lines.some((line) => line.startsWith("C "));
}

/** git's output for `args` on literal paths in `root`; undefined when it fails or cannot be run. */
function git(root: string, args: string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(
      "git",
      ["-c", "core.quotepath=off", "--literal-pathspecs", ...args],
      { cwd: root, env: { ...process.env, LC_ALL: "C", GIT_TERMINAL_PROMPT: "0", GIT_OPTIONAL_LOCKS: "0" }, windowsHide: true, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout) => resolve(error ? undefined : stdout),
    );
  });
}
