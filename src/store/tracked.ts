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
export function isTrackedByGit(root: string, file: string): Promise<boolean> {
  const rel = path.relative(root, file);
  return new Promise((resolve) => {
    execFile(
      "git",
      ["-c", "core.quotepath=off", "--literal-pathspecs", "ls-files", "-z", "--", rel],
      { cwd: root, env: { ...process.env, LC_ALL: "C", GIT_TERMINAL_PROMPT: "0", GIT_OPTIONAL_LOCKS: "0" }, windowsHide: true },
      (error, stdout) => resolve(!error && stdout.length > 0),
    );
  });
}
