/**
 * Git's rename detection for anchors whose file is gone: `git log -M --diff-filter=R` over recent
 * history plus renames staged or made in the working tree (`git diff -M HEAD`). Paths are relative
 * to the project root. No git, or not a repository: no renames (never an error).
 */
import { openRepo, runOrThrow, type GitRepo } from "../diff/git.js";

export type Rename = { from: string; to: string; /** Short commit id, or "working tree". */ commit: string; /** YYYY-MM-DD, or "" for the working tree. */ date: string };

export type Renames = {
  /** Where `file` went, following a chain of renames (a → b → c); undefined when it was never renamed. */
  follow(file: string): Rename | undefined;
  /** Where directory `dir` went: the new directory most of its renamed files moved to. */
  followDir(dir: string): Rename | undefined;
};

/** Commits searched for renames, newest first. */
const MAX_COMMITS = 5000;

const NONE: Renames = { follow: () => undefined, followDir: () => undefined };

export async function loadRenames(root: string): Promise<Renames> {
  let repo: GitRepo;
  try {
    repo = await openRepo(root);
  } catch {
    return NONE;
  }
  const scope = repo.prefix ? repo.prefix.replace(/\/$/, "") : ".";
  const list: Rename[] = [];
  try {
    const log = (await runOrThrow(repo, ["log", "-M", "--diff-filter=R", "--name-status", "-z", "--format=%x01%h%x00%cs", `--max-count=${MAX_COMMITS}`, "--", scope])).toString("utf8");
    // Newest first in the log; oldest first here, so chains are followed forwards.
    for (const block of log.split("\x01").filter(Boolean).reverse()) {
      const [commit = "", date = "", ...rest] = block.split("\0");
      list.push(...pairs(rest, repo, commit, date.trim()));
    }
  } catch {
    return NONE;
  }
  try {
    const work = (await runOrThrow(repo, ["diff", "-M", "--name-status", "-z", "HEAD", "--", scope])).toString("utf8");
    list.push(...pairs(work.split("\0"), repo, "working tree", ""));
  } catch {
    // No HEAD yet: nothing staged can be a rename of a committed file.
  }
  return fromList(list);
}

/** `R100\0old\0new\0` records (status lines may carry a leading newline) → renames inside the project root. */
function pairs(fields: string[], repo: GitRepo, commit: string, date: string): Rename[] {
  const out: Rename[] = [];
  for (let i = 0; i < fields.length; i++) {
    if (!/^\s*R\d*$/.test(fields[i]!)) continue;
    const from = fields[i + 1];
    const to = fields[i + 2];
    i += 2;
    if (from === undefined || to === undefined || !from.startsWith(repo.prefix) || !to.startsWith(repo.prefix)) continue;
    out.push({ from: from.slice(repo.prefix.length), to: to.slice(repo.prefix.length), commit, date });
  }
  return out;
}

/** Renames in time order → lookups that follow chains. */
export function fromList(list: readonly Rename[]): Renames {
  const follow = (file: string): Rename | undefined => {
    let current: Rename | undefined;
    let at = -1;
    let path = file;
    for (let step = 0; step < 50; step++) {
      const next = list.findIndex((r, i) => i > at && r.from === path);
      if (next === -1) break;
      const r = list[next]!;
      current = { from: file, to: r.to, commit: r.commit, date: r.date };
      path = r.to;
      at = next;
    }
    return current;
  };
  return {
    follow,
    followDir(dir) {
      const prefix = `${dir.replace(/\/+$/, "")}/`;
      const votes = new Map<string, { count: number; rename: Rename }>();
      for (const r of list) {
        if (!r.from.startsWith(prefix)) continue;
        const rest = r.from.slice(prefix.length);
        const final = follow(r.from) ?? r;
        if (!final.to.endsWith(`/${rest}`)) continue;
        const to = final.to.slice(0, -rest.length - 1);
        const vote = votes.get(to);
        if (vote) vote.count++;
        else votes.set(to, { count: 1, rename: { from: dir, to, commit: final.commit, date: final.date } });
      }
      let best: { count: number; rename: Rename } | undefined;
      for (const vote of votes.values()) if (!best || vote.count > best.count) best = vote;
      return best?.rename;
    },
  };
}
