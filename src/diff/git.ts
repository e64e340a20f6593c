/** Run the real `git` binary without a shell: repository discovery, revisions, raw diffs, batched blob reads. */
import { execFile, spawn } from "node:child_process";
import { stat } from "node:fs/promises";
import { CairnError } from "../errors.js";

/** A git work tree as seen from a project root inside it. */
export type GitRepo = {
  /** Absolute work-tree top level; every git command runs here, so paths are top-relative. */
  top: string;
  /** The project root relative to `top`, with a trailing `/`, or "" when the root is the top level. */
  prefix: string;
};

/** One record of `git diff-tree/diff-index --raw -z`; paths are relative to the top level. */
export type RawChange = {
  status: "A" | "D" | "M" | "T" | "R" | "C" | "U" | "X";
  oldMode: string;
  newMode: string;
  /** Blob id at BASE (all zeros when absent). */
  oldOid: string;
  /** Blob id at HEAD (all zeros when absent or not yet hashed in the working tree). */
  newOid: string;
  /** Path at BASE (same as `path` unless renamed or copied). */
  oldPath: string;
  path: string;
};

export const NULL_OID = /^0+$/;
const RENAMES = "-M90%";
const MAX_BUFFER = 1024 * 1024 * 1024;

function gitEnv(): NodeJS.ProcessEnv {
  // C locale for stable messages; never prompt; do not take optional locks (no index refresh writes).
  return { ...process.env, LC_ALL: "C", GIT_TERMINAL_PROMPT: "0", GIT_OPTIONAL_LOCKS: "0" };
}

const BASE_ARGS = ["-c", "core.quotepath=off", "--literal-pathspecs", "--no-pager"];

type GitFailure = { code: number | string | undefined; stderr: string; cause: unknown };

/** Run git; resolves stdout or rejects with the exit code and stderr. */
function run(cwd: string, args: string[]): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    execFile("git", [...BASE_ARGS, ...args], { cwd, env: gitEnv(), encoding: "buffer", maxBuffer: MAX_BUFFER, windowsHide: true }, (error, stdout, stderr) => {
      if (!error) return resolve(stdout);
      const failure: GitFailure = { code: (error as NodeJS.ErrnoException).code, stderr: stderr.toString("utf8").trim(), cause: error };
      reject(failure);
    });
  });
}

function gitMissing(failure: GitFailure): CairnError | undefined {
  if (failure.code !== "ENOENT") return undefined;
  return new CairnError("IO", "cannot run git: the `git` executable was not found on PATH; install git to use cairn diff", { cause: failure.cause });
}

/** Run git where a failure means git itself misbehaved (after the repository and revisions were checked). */
export async function runOrThrow(repo: GitRepo, args: string[]): Promise<Buffer> {
  try {
    return await run(repo.top, args);
  } catch (error) {
    const failure = error as GitFailure;
    throw gitMissing(failure) ?? new CairnError("IO", `git ${args[0]} failed: ${failure.stderr || String(failure.code)}`, { cause: failure.cause });
  }
}

/** Find the git work tree holding `root`. Not a repository → USAGE error saying what to do. */
export async function openRepo(root: string): Promise<GitRepo> {
  const info = await stat(root).catch(() => undefined);
  if (!info?.isDirectory()) throw new CairnError("USAGE", `project root ${root} is not a directory; pass --root DIR with the directory that holds knowledge/`);
  let out: string;
  try {
    out = (await run(root, ["rev-parse", "--show-toplevel", "--show-prefix"])).toString("utf8");
  } catch (error) {
    const failure = error as GitFailure;
    const missing = gitMissing(failure);
    if (missing) throw missing;
    if (/not a git repository/i.test(failure.stderr)) {
      throw new CairnError("USAGE", `${root} is not inside a git repository: cairn diff compares git revisions; run it in a clone of the project (or pass --root)`, { cause: failure.cause });
    }
    throw new CairnError("USAGE", `cannot use git in ${root}: ${failure.stderr || String(failure.code)}; expected a git work tree (a bare repository has no files to compare)`, { cause: failure.cause });
  }
  const [top = "", prefix = ""] = out.split("\n");
  if (!top) throw new CairnError("USAGE", `${root} has no git work tree (is it a bare repository?); run cairn diff in a clone of the project`);
  return { top, prefix };
}

/** Resolve a revision to a commit id. Unknown → USAGE error with an example. */
export async function resolveCommit(repo: GitRepo, rev: string): Promise<string> {
  const unknown = (cause?: unknown) =>
    new CairnError(
      "USAGE",
      `unknown revision '${rev}': expected a branch, tag or commit, e.g. origin/main (in CI, fetch it first, e.g. actions/checkout with fetch-depth: 0)`,
      cause === undefined ? undefined : { cause },
    );
  if (!rev || rev.startsWith("-") || /[\0\n]/.test(rev)) throw unknown();
  try {
    const out = (await run(repo.top, ["rev-parse", "--verify", "--quiet", `${rev}^{commit}`])).toString("utf8").trim();
    if (!/^[0-9a-f]{40,64}$/.test(out)) throw unknown();
    return out;
  } catch (error) {
    if (error instanceof CairnError) throw error;
    const failure = error as GitFailure;
    throw gitMissing(failure) ?? unknown(failure.cause);
  }
}

/** The merge base of two commits (for `BASE...HEAD`). */
export async function mergeBase(repo: GitRepo, a: string, b: string): Promise<string> {
  try {
    return (await run(repo.top, ["merge-base", a, b])).toString("utf8").trim();
  } catch (error) {
    const failure = error as GitFailure;
    throw gitMissing(failure) ?? new CairnError("USAGE", `the revisions have no common ancestor, so '...' has no merge base; compare them directly with cairn diff A B`, { cause: failure.cause });
  }
}

/**
 * Changes under `pathspec` from commit `base` to commit `head`, or to the working tree (tracked
 * files, like `git diff BASE`) when `head` is undefined. Only near-identical renames are paired
 * (-M90%): entries are short and share boilerplate, so git's default 50% pairs unrelated entries.
 */
export async function rawChanges(repo: GitRepo, base: string, head: string | undefined, pathspec: string | readonly string[]): Promise<RawChange[]> {
  const args = head === undefined
    ? ["diff-index", "-z", "--no-abbrev", RENAMES, base, "--", ...specs(pathspec)]
    : ["diff-tree", "-r", "-z", "--no-abbrev", RENAMES, base, head, "--", ...specs(pathspec)];
  return parseRaw((await runOrThrow(repo, args)).toString("utf8"));
}

function specs(pathspec: string | readonly string[]): string[] {
  return typeof pathspec === "string" ? [pathspec] : [...pathspec];
}

/** Parse `--raw -z` output: `:oldmode newmode oldoid newoid status\0path\0[newpath\0]`. */
export function parseRaw(text: string): RawChange[] {
  const fields = text.split("\0");
  const out: RawChange[] = [];
  for (let i = 0; i < fields.length; ) {
    const meta = fields[i++] ?? "";
    if (!meta.startsWith(":")) continue;
    const [oldMode = "", newMode = "", oldOid = "", newOid = "", statusField = ""] = meta.slice(1).split(" ");
    const status = (statusField[0] ?? "X") as RawChange["status"];
    const first = fields[i++] ?? "";
    const second = status === "R" || status === "C" ? (fields[i++] ?? "") : first;
    out.push({ status, oldMode, newMode, oldOid, newOid, oldPath: first, path: second });
  }
  return out;
}

/** Untracked, not ignored files under `pathspec` in the working tree (top-relative). */
export async function untrackedFiles(repo: GitRepo, pathspec: string | readonly string[]): Promise<string[]> {
  const out = (await runOrThrow(repo, ["ls-files", "--others", "--exclude-standard", "-z", "--", ...specs(pathspec)])).toString("utf8");
  return out.split("\0").filter(Boolean);
}

/** Files under `pathspec` in the index (tracked: committed or staged), top-relative. */
export async function trackedFiles(repo: GitRepo, pathspec: string): Promise<string[]> {
  const out = (await runOrThrow(repo, ["ls-files", "-z", "--", pathspec])).toString("utf8");
  return out.split("\0").filter(Boolean);
}

/** Blobs under `pathspec` in commit `rev`: top-relative path and blob id. */
export async function listTree(repo: GitRepo, rev: string, pathspec: string): Promise<Array<{ path: string; oid: string; mode: string }>> {
  const out = (await runOrThrow(repo, ["ls-tree", "-r", "-z", rev, "--", pathspec])).toString("utf8");
  const rows: Array<{ path: string; oid: string; mode: string }> = [];
  for (const record of out.split("\0")) {
    const tab = record.indexOf("\t");
    if (tab === -1) continue;
    const [mode = "", type = "", oid = ""] = record.slice(0, tab).split(" ");
    if (type === "blob") rows.push({ path: record.slice(tab + 1), oid, mode });
  }
  return rows;
}

/** One entry of a tree: mode (`040000` a directory, `120000` a link, `160000` a gitlink), type and object id. */
export type TreeEntry = { mode: string; type: string; oid: string };

/** The entry at exactly `topPath` in commit `rev` (no link followed), or undefined when there is none. */
export async function entryAt(repo: GitRepo, rev: string, topPath: string): Promise<TreeEntry | undefined> {
  const out = (await runOrThrow(repo, ["ls-tree", "-z", rev, "--", topPath])).toString("utf8");
  for (const record of out.split("\0")) {
    const tab = record.indexOf("\t");
    if (tab === -1 || record.slice(tab + 1) !== topPath) continue;
    const [mode = "", type = "", oid = ""] = record.slice(0, tab).split(" ");
    return { mode, type, oid };
  }
  return undefined;
}

/** A submodule as a tree holds it: its top-relative path and the commit it is pinned to. */
export type Gitlink = { path: string; commit: string };

/** Gitlinks (submodules, mode 160000) at or under `pathspecs`: in commit `rev`, or in the index when `rev` is undefined. */
export async function gitlinks(repo: GitRepo, rev: string | undefined, pathspecs: readonly string[]): Promise<Gitlink[]> {
  if (pathspecs.length === 0) return [];
  const args = rev === undefined ? ["ls-files", "-s", "-z", "--", ...pathspecs] : ["ls-tree", "-r", "-z", rev, "--", ...pathspecs];
  const out = (await runOrThrow(repo, args)).toString("utf8");
  return out.split("\0").flatMap((record) => {
    const tab = record.indexOf("\t");
    if (tab === -1 || !record.startsWith("160000 ")) return [];
    // ls-tree: "160000 commit <oid>"; ls-files -s: "160000 <oid> <stage>".
    const fields = record.slice(0, tab).split(" ");
    return [{ path: record.slice(tab + 1), commit: (rev === undefined ? fields[1] : fields[2]) ?? "" }];
  });
}

/** Files under `pathspec` in the working tree that git tracks or would (tracked, plus untracked and not ignored), top-relative. */
export async function workTreeFiles(repo: GitRepo, pathspec: readonly string[]): Promise<string[]> {
  const out = (await runOrThrow(repo, ["ls-files", "--cached", "--others", "--exclude-standard", "-z", "--", ...pathspec])).toString("utf8");
  return [...new Set(out.split("\0").filter(Boolean))];
}

/** Read many blobs with one `git cat-file --batch` process. Missing objects are absent from the map. */
export function readBlobs(repo: GitRepo, oids: readonly string[]): Promise<Map<string, Buffer>> {
  const unique = [...new Set(oids)];
  if (unique.length === 0) return Promise.resolve(new Map());
  return new Promise((resolve, reject) => {
    const child = spawn("git", [...BASE_ARGS, "cat-file", "--batch"], { cwd: repo.top, env: gitEnv(), windowsHide: true });
    const chunks: Buffer[] = [];
    const errors: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => errors.push(chunk));
    child.stdin.on("error", () => {
      // EPIPE when git exits early; the exit code below reports the failure.
    });
    child.on("error", (cause) => {
      const failure: GitFailure = { code: (cause as NodeJS.ErrnoException).code, stderr: "", cause };
      reject(gitMissing(failure) ?? new CairnError("IO", `cannot run git cat-file: ${cause.message}`, { cause }));
    });
    child.on("close", (code) => {
      if (code !== 0) {
        reject(new CairnError("IO", `git cat-file --batch failed (exit ${code}): ${Buffer.concat(errors).toString("utf8").trim()}`));
        return;
      }
      try {
        resolve(parseBatch(Buffer.concat(chunks), unique));
      } catch (cause) {
        reject(new CairnError("IO", `cannot read the output of git cat-file --batch: ${(cause as Error).message}`, { cause }));
      }
    });
    child.stdin.end(`${unique.join("\n")}\n`);
  });
}

/** Parse `<oid> <type> <size>\n<bytes>\n` records (or `<name> missing\n`) in request order. */
export function parseBatch(out: Buffer, requested: readonly string[]): Map<string, Buffer> {
  const blobs = new Map<string, Buffer>();
  let pos = 0;
  for (const oid of requested) {
    const nl = out.indexOf(10, pos);
    if (nl === -1) throw new Error(`output ends before the record for ${oid}`);
    const header = out.subarray(pos, nl).toString("utf8").split(" ");
    if (header[1] === "missing" || header.length < 3) {
      pos = nl + 1;
      continue;
    }
    const size = Number(header[2]);
    if (!Number.isInteger(size) || size < 0) throw new Error(`bad header "${header.join(" ")}"`);
    blobs.set(oid, out.subarray(nl + 1, nl + 1 + size));
    pos = nl + 1 + size + 1;
  }
  return blobs;
}

export type LogCommit = { commit: string; date: string; author: string; subject: string };

/** Commits touching any of `paths` (top-relative), newest first, following renames of a single path. */
export async function fileLog(repo: GitRepo, paths: readonly string[]): Promise<LogCommit[]> {
  const follow = paths.length === 1 ? ["--follow"] : [];
  const out = (await runOrThrow(repo, ["log", ...follow, "-z", "--format=%H%x1f%aI%x1f%an%x1f%s", "--", ...paths])).toString("utf8");
  return out
    .split("\0")
    .map((record) => record.replace(/^\n+/, ""))
    .filter(Boolean)
    .map((record) => {
      const [commit = "", date = "", author = "", subject = ""] = record.split("\x1f");
      return { commit, date, author, subject };
    });
}
