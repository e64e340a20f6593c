/** Which files a pull request changes, relative to the project root: from the merge base of BASE and HEAD. */
import { execFile } from "node:child_process";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { mergeBase, openRepo, rawChanges, resolveCommit, workTreeFiles } from "../diff/git.js";
import { pathspecs, toLayoutPath } from "../diff/real-dirs.js";
import { dirsAt, dirsInWorkTree, pinnedKnowledgeDir, sameDirs } from "../diff/side-dirs.js";
import type { Layout } from "../store/layout.js";

export type ChangedFiles =
  | { kind: "known"; base: string; mergeBase: string; files: Set<string> }
  | { kind: "unknown"; reason: string };

/**
 * Files changed between the merge base of `base` and HEAD (what the pull request shows), named as diagnostics name
 * them: root-relative, and a file under the knowledge directory's real location (reached through a link, e.g.
 * `knowledgeDir: "kb"` with `kb -> knowledge`) by the layout's path. A base commit missing from a shallow clone is
 * fetched once from `origin`; when it still cannot be found the answer is "unknown" with the reason, and the caller
 * checks every file. When the knowledge directory is kept elsewhere than at the merge base, or is (or holds) a
 * submodule, every file in it counts as changed.
 */
export async function changedFiles(layout: Layout, base: string): Promise<ChangedFiles> {
  try {
    const repo = await openRepo(layout.root);
    let baseCommit = await resolveCommit(repo, base).catch(() => undefined);
    if (!baseCommit) {
      await fetchOnce(repo.top, base);
      baseCommit = await resolveCommit(repo, base);
    }
    const head = await resolveCommit(repo, "HEAD");
    const from = await mergeBase(repo, baseCommit, head);
    const [was, now] = await Promise.all([dirsAt(repo, from, "the merge base", await pinnedKnowledgeDir(layout)), dirsInWorkTree(repo, layout)]);
    const real = now.real;
    const shown = (topPath: string) => toLayoutPath(real, topPath) ?? topPath.slice(repo.prefix.length);
    const changes = await rawChanges(repo, from, head, [...new Set([repo.prefix || ".", ...pathspecs(real)])]);
    const files = new Set(changes.filter((c) => c.status !== "D").map((c) => shown(c.path)));
    // Kept somewhere else than at the merge base (a moved knowledgeDir, a link swapped or retargeted), every file of
    // the knowledge directory is new to it: git sees no change in a file committed earlier at its new place.
    if (!sameDirs(was.real, real)) for (const topPath of await workTreeFiles(repo, pathspecs(real))) files.add(shown(topPath));
    // Inside a submodule git lists no files: what the checkout holds there counts as changed when the pull request
    // moves the submodule to another commit (the diff reports that as an error); an unchanged one changes nothing.
    const pinned = new Map(was.gitlinks.map((l) => [l.path, l.commit]));
    for (const link of now.gitlinks.filter((l) => pinned.get(l.path) !== l.commit)) {
      for (const topPath of await filesBelow(repo.top, link.path)) files.add(shown(topPath));
    }
    return { kind: "known", base: baseCommit, mergeBase: from, files };
  } catch (error) {
    return {
      kind: "unknown",
      reason: `${(error as Error).message} (check out the repository with actions/checkout and fetch-depth: 0 so the pull request's base is available)`,
    };
  }
}

/** Files below a top-relative directory in the working tree (a submodule's checkout), top-relative; none when it is absent. */
async function filesBelow(top: string, dir: string): Promise<string[]> {
  const names = await readdir(path.join(top, dir), { recursive: true, withFileTypes: true }).catch(() => []);
  return names.filter((d) => !d.isDirectory()).map((d) => path.relative(top, path.join(d.parentPath, d.name)).split(path.sep).join("/"));
}

/** `git fetch --no-tags origin REV` (a shallow checkout may lack the base commit); failures are left to the next step. */
function fetchOnce(top: string, rev: string): Promise<void> {
  return new Promise((resolve) => {
    execFile("git", ["fetch", "--no-tags", "--quiet", "origin", rev], { cwd: top, env: { ...process.env, GIT_TERMINAL_PROMPT: "0" } }, () => resolve());
  });
}
