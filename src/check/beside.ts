/**
 * `knowledge/.pending/` files committed to git, which `check` reports when it checks the whole knowledge directory (next
 * to the ledger's skipped lines and misplaced markdown: src/kb/check.ts). A pull request can bring one, and the gate
 * that runs `check` must see it: only `cairn diff` said so before.
 */
import { lstat, readdir } from "node:fs/promises";
import { diagnostic, type Diagnostic } from "../entry/diagnostic.js";
import { type Layout, relativePath } from "../store/layout.js";
import { pendingDir } from "../store/pending.js";
import { trackedByGit } from "../store/tracked.js";

/**
 * `pending-committed` for every file in `knowledge/.pending/` that git tracks. cairn never applies such a change log
 * (src/lifecycle/change.ts), but it must not be merged either. git runs only when the directory holds a file.
 */
export async function committedPending(layout: Layout): Promise<Diagnostic[]> {
  const dir = pendingDir(layout);
  // A directory holding a file, or anything else at that name (a committed plain file or link is no directory).
  const there = await lstat(dir).then((s) => (s.isDirectory() ? readdir(dir).then((names) => names.length > 0, () => true) : true), () => false);
  if (!there) return [];
  const pending = relativePath(layout, dir);
  return (await trackedByGit(layout.root, dir)).map((abs) =>
    diagnostic(relativePath(layout, abs), "pending-committed", "error", `committed to git: files in ${pending}/ are a running change's log or lock, local to one machine, and cairn never applies a committed one — remove it from git (git rm --cached) and keep ${pending}/ in .gitignore (cairn init does)`),
  );
}
