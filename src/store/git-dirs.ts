/** Where git keeps a repository's state, read from `.git` itself (no git process). */
import { readFile, stat } from "node:fs/promises";
import path from "node:path";

/** The git dir (per worktree) and common dir (per clone) of the repository holding `start`, if any. */
export async function gitDirs(start: string): Promise<{ gitDir: string; commonDir: string } | undefined> {
  let dir = path.resolve(start);
  for (;;) {
    const dotGit = path.join(dir, ".git");
    const info = await stat(dotGit).catch(() => undefined);
    if (info?.isDirectory()) return { gitDir: dotGit, commonDir: dotGit };
    if (info?.isFile()) {
      // A worktree or submodule: `.git` is a file "gitdir: <path>".
      const text = await readFile(dotGit, "utf8").catch(() => "");
      const match = /^gitdir:\s*(.+)$/m.exec(text);
      if (!match) return undefined;
      const gitDir = path.resolve(dir, match[1]!.trim());
      const common = (await readFile(path.join(gitDir, "commondir"), "utf8").catch(() => "")).trim();
      return { gitDir, commonDir: common ? path.resolve(gitDir, common) : gitDir };
    }
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}


/**
 * A token that changes whenever git's view of the repository may have: what HEAD names, the commit of
 * its branch and the index's size and mtime (`git add`, commits, checkouts and merges all rewrite it).
 * Undefined outside git. Edits to files git does not track yet are invisible to it.
 */
export async function gitStateToken(root: string): Promise<string | undefined> {
  const dirs = await gitDirs(root).catch(() => undefined);
  if (!dirs) return undefined;
  const head = (await readFile(path.join(dirs.gitDir, "HEAD"), "utf8").catch(() => "")).trim();
  const ref = /^ref:\s*(refs\/.+)$/.exec(head)?.[1];
  const commit = ref ? (await readFile(path.join(dirs.commonDir, ref), "utf8").catch(() => "")).trim() || (await signature(path.join(dirs.commonDir, "packed-refs"))) : "";
  return [head, commit, await signature(path.join(dirs.gitDir, "index"))].join("|");
}

async function signature(file: string): Promise<string> {
  const info = await stat(file).catch(() => undefined);
  return info ? `${info.mtimeMs}:${info.size}` : "-";
}
