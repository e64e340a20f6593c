/**
 * Where a run happens: `<branch>@<clone id>`, recorded on run events so that two branches' or two
 * clones' `pr-1` count as two runs. Read straight from `.git` (no git process on the inject path):
 * the branch from HEAD, the clone id from `cairn-clone-id` in the repository's common git dir
 * (created once, random; every worktree of a clone shares it, every clone has its own).
 */
import { createHash } from "node:crypto";
import { readFile, realpath, stat } from "node:fs/promises";
import { gitDirs } from "../store/git-dirs.js";
import os from "node:os";
import path from "node:path";

/** The checked-out branch (`main`, `feature/x`), or `detached` when HEAD is a commit. */
async function branchOf(gitDir: string): Promise<string> {
  const head = (await readFile(path.join(gitDir, "HEAD"), "utf8").catch(() => "")).trim();
  const match = /^ref:\s*refs\/heads\/(.+)$/.exec(head);
  return match ? match[1]! : "detached";
}

/**
 * This clone's id: 8 hex characters of a hash of the host name, the real path of the common git dir
 * and its inode and creation time. Nothing is written (a worktree's git dir may lie outside the
 * repository root); every worktree of a clone shares it, a new clone — even at the same path — gets
 * another one. It changes when the clone moves (another path) or is used from another host or container: a review
 * split that way sets $CAIRN_ORIGIN, or its runs count once per place.
 */
async function cloneId(commonDir: string): Promise<string> {
  const real = await realpath(commonDir).catch(() => commonDir);
  const info = await stat(real).catch(() => undefined);
  return createHash("sha256")
    .update([os.hostname(), real, info?.ino ?? "", info?.birthtimeMs ?? ""].join("\u0000"))
    .digest("hex")
    .slice(0, 8);
}

/**
 * The environment variable that names where runs happen (beats git): a review whose `inject` and `record` run in
 * different containers, hosts or fresh clones — each its own clone id — sets it to one value for the whole review.
 */
export const ORIGIN_ENV = "CAIRN_ORIGIN";

/** `$CAIRN_ORIGIN`, else `<branch>@<clone id>` for the repository holding `root`, else undefined (outside git). Never throws. */
export async function detectOrigin(root: string): Promise<string | undefined> {
  const fromEnv = process.env[ORIGIN_ENV]?.trim();
  if (fromEnv) return fromEnv;
  try {
    const dirs = await gitDirs(root);
    if (!dirs) return undefined;
    return `${await branchOf(dirs.gitDir)}@${await cloneId(dirs.commonDir)}`;
  } catch {
    return undefined;
  }
}
