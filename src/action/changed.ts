/** Which files a pull request changes, relative to the project root: from the merge base of BASE and HEAD. */
import { execFile } from "node:child_process";
import { mergeBase, openRepo, rawChanges, resolveCommit } from "../diff/git.js";
import { pathspecs, realDirs, toLayoutPath } from "../diff/real-dirs.js";
import type { Layout } from "../store/layout.js";

export type ChangedFiles =
  | { kind: "known"; base: string; mergeBase: string; files: Set<string> }
  | { kind: "unknown"; reason: string };

/**
 * Files changed between the merge base of `base` and HEAD (what the pull request shows), named as diagnostics name
 * them: root-relative, and a file under the knowledge directory's real location (reached through a link, e.g.
 * `knowledgeDir: "kb"` with `kb -> knowledge`) by the layout's path. A base commit missing from a shallow clone is
 * fetched once from `origin`; when it still cannot be found the answer is "unknown" with the reason, and the caller
 * checks every file.
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
    const real = await realDirs(repo, layout);
    const changes = await rawChanges(repo, from, head, [...new Set([repo.prefix || ".", ...pathspecs(real)])]);
    const files = new Set(changes.filter((c) => c.status !== "D").map((c) => toLayoutPath(real, c.path) ?? c.path.slice(repo.prefix.length)));
    return { kind: "known", base: baseCommit, mergeBase: from, files };
  } catch (error) {
    return {
      kind: "unknown",
      reason: `${(error as Error).message} (check out the repository with actions/checkout and fetch-depth: 0 so the pull request's base is available)`,
    };
  }
}

/** `git fetch --no-tags origin REV` (a shallow checkout may lack the base commit); failures are left to the next step. */
function fetchOnce(top: string, rev: string): Promise<void> {
  return new Promise((resolve) => {
    execFile("git", ["fetch", "--no-tags", "--quiet", "origin", rev], { cwd: top, env: { ...process.env, GIT_TERMINAL_PROMPT: "0" } }, () => resolve());
  });
}
