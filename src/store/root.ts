/** Which directory is the project root: plain file checks, no configuration read (a command forwarded to `cairn watch` needs only this). */
import { existsSync } from "node:fs";
import path from "node:path";

export const CONFIG_FILE = "cairn.config.json";

/**
 * The project root for every command but `init`: the nearest ancestor of `start` holding
 * `knowledge/` or `cairn.config.json`, never above the top of the git repository `start` is in
 * (a project nested in a folder that happens to hold `knowledge/` must not adopt that folder).
 * Undefined when there is none.
 */
export function findRoot(start: string): string | undefined {
  let dir = path.resolve(start);
  for (;;) {
    if (existsSync(path.join(dir, CONFIG_FILE)) || existsSync(path.join(dir, "knowledge"))) return dir;
    if (existsSync(path.join(dir, ".git"))) return undefined; // the repository's top: stop here
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** The top of the git repository holding `start`: the nearest ancestor with a `.git` directory or file (worktrees, submodules); undefined outside git. */
export function gitTop(start: string): string | undefined {
  let dir = path.resolve(start);
  for (;;) {
    if (existsSync(path.join(dir, ".git"))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** The root a command works in: `--root`, else the nearest project root above the working directory, else the git top, else the working directory. */
export function commandRoot(given: string | undefined, cwd: string): string {
  return path.resolve(cwd, given ?? findRoot(cwd) ?? gitTop(cwd) ?? cwd);
}
