/** Read both sides of the changed knowledge files (git blobs or the working tree) and parse them. */
import { createHash } from "node:crypto";
import { lstat, readFile } from "node:fs/promises";
import path from "node:path";
import { parseEntry } from "../entry/parse.js";
import type { EntryState } from "../entry/types.js";
import { NULL_OID, type GitRepo, listTree, rawChanges, readBlobs, untrackedFiles, workTreeFiles } from "./git.js";
import type { LedgerText } from "./ledger.js";
import type { EntryVersion } from "./plan.js";
import { pathspecs, toLayoutPath, type RealDirs } from "./real-dirs.js";
import { sameDirs } from "./side-dirs.js";
import { isEntryFileName } from "../store/files.js";

export type Sides = {
  before: EntryVersion[];
  after: EntryVersion[];
  /** Root-relative rename pairs reported by git. */
  renames: Array<{ from: string; to: string }>;
  ledgerBefore: LedgerText[];
  ledgerAfter: LedgerText[];
};

export type SideOptions = {
  /** Where BASE keeps the knowledge directory, its archive and its ledger, named as BASE's layout names them. */
  before: RealDirs;
  /** Where HEAD (or the working tree) keeps them, named as its layout names them. */
  after: RealDirs;
  /** Commit id of BASE. */
  base: string;
  /** Commit id of HEAD; undefined for the working tree. */
  head: string | undefined;
  /** Today (UTC) for the future-date rule in HEAD's error list. */
  today: string;
};

type Where = { kind: "entry"; state: EntryState } | { kind: "ledger" };

/**
 * Entry files sit directly in the knowledge dir or its archive/ (as `listEntryFiles` lists them); ledger files in
 * .ledger/. `file` and `knowledgeDir` are paths relative to one place (the project root, as the layout names them).
 */
export function classify(file: string, knowledgeDir: string): Where | undefined {
  const lead = knowledgeDir ? `${knowledgeDir}/` : "";
  if (!file.startsWith(lead)) return undefined;
  const rest = file.slice(lead.length);
  const slash = rest.indexOf("/");
  const name = slash === -1 ? rest : rest.slice(slash + 1);
  const dir = slash === -1 ? "" : rest.slice(0, slash);
  if (name.includes("/")) return undefined;
  if (dir === ".ledger") return name.endsWith(".jsonl") && !name.startsWith(".") ? { kind: "ledger" } : undefined;
  if (!isEntryFileName(name)) return undefined;
  if (dir === "") return { kind: "entry", state: "active" };
  if (dir === "archive") return { kind: "entry", state: "archived" };
  return undefined;
}

/** `topPath`: git's path (top-relative); `file`: the layout's (root-relative). */
type Request = { topPath: string; file: string; where: Where; side: "before" | "after"; blob?: string; mode: string };

/** Collect and parse every changed entry and ledger file on both sides. */
export async function readSides(repo: GitRepo, options: SideOptions): Promise<Sides> {
  const renames: Sides["renames"] = [];
  const requests = sameDirs(options.before, options.after) ? await changedRequests(repo, options, renames) : await movedRequests(repo, options);
  const blobs = await readBlobs(repo, requests.flatMap((r) => (r.blob !== undefined && isRegular(r.mode) ? [r.blob] : [])));
  const sides: Sides = { before: [], after: [], renames, ledgerBefore: [], ledgerAfter: [] };
  for (const request of requests) {
    const content = await contentOf(repo, request, blobs);
    if (content === undefined) continue;
    const relPath = request.file;
    if (request.where.kind === "ledger") {
      if (typeof content !== "string") (request.side === "before" ? sides.ledgerBefore : sides.ledgerAfter).push({ path: relPath, text: content.toString("utf8") });
      continue;
    }
    const version = typeof content === "string"
      ? { path: relPath, state: request.where.state, hash: `unreadable:${content}`, errors: [content] }
      : parseVersion(content, relPath, request.where.state, options.today);
    (request.side === "before" ? sides.before : sides.after).push(version);
  }
  return sides;
}

/** A file's names at one revision: git's (top-relative) → the layout's (root-relative) → its place in the layout. */
function namer(repo: GitRepo, real: RealDirs) {
  const shown = (topPath: string) => toLayoutPath(real, topPath) ?? topPath.slice(repo.prefix.length);
  return { shown, place: (topPath: string) => classify(shown(topPath), real.knowledge.shown) };
}

/** Both revisions keep the directories in the same places: git's raw diff of those places says what changed. */
async function changedRequests(repo: GitRepo, options: SideOptions, renames: Sides["renames"]): Promise<Request[]> {
  const { base, head } = options;
  const specs = pathspecs(options.after);
  const changes = await rawChanges(repo, base, head, specs);
  const requests: Request[] = [];
  // Git names files under the real directories; the diff names them as each side's layout does (a linked knowledgeDir).
  const was = namer(repo, options.before);
  const now = namer(repo, options.after);
  for (const change of changes) {
    const oldWhere = was.place(change.oldPath);
    const newWhere = now.place(change.path);
    if (oldWhere && change.status !== "A" && change.status !== "C") {
      // An unmerged path has no BASE blob id in the raw record; ask for it by name instead.
      const blob = NULL_OID.test(change.oldOid) ? `${base}:${change.oldPath}` : change.oldOid;
      if (!blob.includes("\n")) requests.push({ topPath: change.oldPath, file: was.shown(change.oldPath), where: oldWhere, side: "before", blob, mode: NULL_OID.test(change.oldMode) ? "100644" : change.oldMode });
    }
    if (newWhere && change.status !== "D") {
      const fromGit = head !== undefined && !NULL_OID.test(change.newOid);
      requests.push({ topPath: change.path, file: now.shown(change.path), where: newWhere, side: "after", mode: change.newMode, ...(fromGit ? { blob: change.newOid } : {}) });
    }
    if (change.status === "R") renames.push({ from: was.shown(change.oldPath), to: now.shown(change.path) });
  }
  if (head === undefined) {
    for (const topPath of await untrackedFiles(repo, specs)) {
      const where = now.place(topPath);
      if (where) requests.push({ topPath, file: now.shown(topPath), where, side: "after", mode: "100644" });
    }
  }
  return requests;
}

/**
 * The revisions keep the directories in different places (a moved knowledgeDir, a link swapped or retargeted): every
 * file of BASE's directories is compared with the file at the same place in HEAD's — its path inside the knowledge
 * directory — so a pure move changes no entry, and an entry whose text changed on the way shows the change. Git's
 * rename pairs are not asked for: entries pair by id, then by identical text.
 */
async function movedRequests(repo: GitRepo, options: SideOptions): Promise<Request[]> {
  const before = await filesAt(repo, options.before, "before", options.base);
  const after = await filesAt(repo, options.after, "after", options.head);
  const requests: Request[] = [];
  for (const [key, b] of before) {
    const a = after.get(key);
    if (a && a.blob !== undefined && a.blob === b.blob && a.mode === b.mode) {
      after.delete(key);
      continue;
    }
    requests.push(b);
  }
  return [...requests, ...after.values()];
}

/** Every entry and ledger file of one side (a commit, or the working tree when `rev` is undefined), by its path inside the knowledge dir. */
async function filesAt(repo: GitRepo, real: RealDirs, side: Request["side"], rev: string | undefined): Promise<Map<string, Request>> {
  const { shown, place } = namer(repo, real);
  const lead = real.knowledge.shown ? `${real.knowledge.shown}/` : "";
  const files = new Map<string, Request>();
  const add = (topPath: string, mode: string, blob?: string) => {
    const where = place(topPath);
    if (!where) return;
    const file = shown(topPath);
    files.set(file.slice(lead.length), { topPath, file, where, side, mode, ...(blob !== undefined ? { blob } : {}) });
  };
  if (rev === undefined) {
    for (const topPath of await workTreeFiles(repo, pathspecs(real))) add(topPath, "100644");
  } else {
    for (const spec of pathspecs(real)) for (const f of await listTree(repo, rev, spec)) add(f.path, f.mode, f.oid);
  }
  return files;
}

/** What `cairn check` says of an entry file that is a symbolic link (`readEntryBytes`), so the diff and the gate agree. */
const LINK_PROBLEM = "line 1: entry-symlink: is a symbolic link; expected a regular file: git stores only the link, so no diff shows the text a prompt would get (cairn check reports it, inject never injects it)";

/** Bytes of a request, a problem message (string) for something that is not a regular file, or undefined when absent. */
async function contentOf(repo: GitRepo, request: Request, blobs: Map<string, Buffer>): Promise<Buffer | string | undefined> {
  if (request.blob !== undefined) {
    if (request.mode === "120000") return LINK_PROBLEM;
    if (!isRegular(request.mode)) return undefined;
    return blobs.get(request.blob);
  }
  const abs = path.join(repo.top, request.topPath);
  try {
    const info = await lstat(abs);
    if (info.isSymbolicLink()) return LINK_PROBLEM;
    if (!info.isFile()) return undefined;
    return await readFile(abs);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    return `cannot read the file: ${(error as Error).message}`;
  }
}

function isRegular(mode: string): boolean {
  return mode === "100644" || mode === "100755";
}

function parseVersion(bytes: Buffer, relPath: string, state: EntryState, today: string): EntryVersion {
  const hash = createHash("sha256").update(bytes).digest("hex");
  const result = parseEntry(bytes, { file: relPath, state, today });
  const errors = result.diagnostics.filter((d) => d.severity === "error").map((d) => `line ${d.line}: ${d.message}`);
  return { path: relPath, state, hash, errors, ...(result.entry ? { entry: result.entry } : {}) };
}

/** Every ledger file in commit `head`, named as the layout names them. */
export async function ledgerAt(repo: GitRepo, head: string, real: RealDirs): Promise<LedgerText[]> {
  const shown = (topPath: string) => toLayoutPath(real, topPath) ?? topPath.slice(repo.prefix.length);
  const files = (await listTree(repo, head, real.ledger.top || ".")).filter((f) => classify(shown(f.path), real.knowledge.shown)?.kind === "ledger" && f.mode !== "120000");
  const blobs = await readBlobs(repo, files.map((f) => f.oid));
  return files.flatMap((f) => {
    const blob = blobs.get(f.oid);
    return blob ? [{ path: shown(f.path), text: blob.toString("utf8") }] : [];
  });
}
