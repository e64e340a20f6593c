/**
 * `knowledge/.pending/` files committed to git, and ledger files that are not regular files, which `check` reports when it checks the whole knowledge directory (next
 * to the ledger's skipped lines and misplaced markdown: src/kb/check.ts). A pull request can bring one, and the gate
 * that runs `check` must see it: only `cairn diff` said so before.
 */
import { lstat, readdir } from "node:fs/promises";
import path from "node:path";
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

/**
 * `cache-tracked` for every file under the cache directory (`.cairn/`) that git tracks. Everything there is derived and
 * local to one machine: the index and lint cache are rebuilt when they were not written in that directory (their seal,
 * src/store/cache-seal.ts), and a lock git tracks is not honoured (src/store/lock.ts), but a pull request committing a
 * lock there turned `inject` off for a chosen agent and run in every fresh clone until then, while `check` passed.
 * One `git ls-files` limited to the directory; the caller runs this only when the directory was there before `check`
 * wrote its own index into it.
 */
export async function trackedCache(layout: Layout): Promise<Diagnostic[]> {
  const cache = relativePath(layout, layout.cache);
  return (await trackedByGit(layout.root, layout.cache)).map((abs) =>
    diagnostic(relativePath(layout, abs), "cache-tracked", "error", `committed to git: ${cache}/ holds cairn's derived index, caches and locks, local to one machine and rebuilt from the entry files — a committed lock there could keep inject from giving an agent its knowledge — remove it from git (git rm -r --cached ${cache}) and keep ${cache}/ in .gitignore (cairn init does)`),
  );
}

/**
 * `ledger-not-a-file` for every `*.jsonl` name in the ledger directory that is not a regular file (a link, even one
 * inside the repository; a directory). The ledger never reads one (its events are not counted, silently) and appending
 * refuses it, so a pull request committing one under this month's name turned `inject` and `record` off while `check`
 * passed; under a later month's, it waited for that month.
 */
export async function irregularLedgerFiles(layout: Layout): Promise<Diagnostic[]> {
  const dirents = await readdir(layout.ledger, { withFileTypes: true }).catch(() => []);
  return dirents
    .filter((d) => d.name.endsWith(".jsonl") && !d.name.startsWith(".") && !d.isFile())
    .map((d) => {
      const what = d.isSymbolicLink() ? "a symbolic link" : d.isDirectory() ? "a directory" : "not a regular file";
      const file = relativePath(layout, path.join(layout.ledger, d.name));
      return diagnostic(file, "ledger-not-a-file", "error", `${file} is ${what}: ledger files must be regular files — its events are never read, and inject and record refuse to append to it; expected a regular file (replace it with the events it should hold, or remove it)`);
    })
    .sort((a, b) => (a.file < b.file ? -1 : 1));
}
