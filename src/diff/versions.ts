/** Read both sides of the changed knowledge files (git blobs or the working tree) and parse them. */
import { createHash } from "node:crypto";
import { lstat, readFile } from "node:fs/promises";
import path from "node:path";
import { parseEntry } from "../entry/parse.js";
import type { EntryState } from "../entry/types.js";
import { NULL_OID, type GitRepo, listTree, rawChanges, readBlobs, untrackedFiles } from "./git.js";
import type { LedgerText } from "./ledger.js";
import type { EntryVersion } from "./plan.js";
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
  /** Knowledge directory relative to the git top level, forward slashes, no trailing slash ("" for the top level). */
  knowledgeTop: string;
  /** Commit id of BASE. */
  base: string;
  /** Commit id of HEAD; undefined for the working tree. */
  head: string | undefined;
  /** Today (UTC) for the future-date rule in HEAD's error list. */
  today: string;
};

type Where = { kind: "entry"; state: EntryState } | { kind: "ledger" };

/** Entry files sit directly in the knowledge dir or its archive/ (as `listEntryFiles` lists them); ledger files in .ledger/. */
export function classify(topPath: string, knowledgeTop: string): Where | undefined {
  const lead = knowledgeTop ? `${knowledgeTop}/` : "";
  if (!topPath.startsWith(lead)) return undefined;
  const rest = topPath.slice(lead.length);
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

type Request = { topPath: string; where: Where; side: "before" | "after"; blob?: string; mode: string };

/** Collect and parse every changed entry and ledger file on both sides. */
export async function readSides(repo: GitRepo, options: SideOptions): Promise<Sides> {
  const { knowledgeTop, base, head } = options;
  const pathspec = knowledgeTop || ".";
  const changes = await rawChanges(repo, base, head, pathspec);
  const requests: Request[] = [];
  const renames: Sides["renames"] = [];
  const rel = (topPath: string) => topPath.slice(repo.prefix.length);
  for (const change of changes) {
    const oldWhere = classify(change.oldPath, knowledgeTop);
    const newWhere = classify(change.path, knowledgeTop);
    if (oldWhere && change.status !== "A" && change.status !== "C") {
      // An unmerged path has no BASE blob id in the raw record; ask for it by name instead.
      const blob = NULL_OID.test(change.oldOid) ? `${base}:${change.oldPath}` : change.oldOid;
      if (!blob.includes("\n")) requests.push({ topPath: change.oldPath, where: oldWhere, side: "before", blob, mode: NULL_OID.test(change.oldMode) ? "100644" : change.oldMode });
    }
    if (newWhere && change.status !== "D") {
      const fromGit = head !== undefined && !NULL_OID.test(change.newOid);
      requests.push({ topPath: change.path, where: newWhere, side: "after", mode: change.newMode, ...(fromGit ? { blob: change.newOid } : {}) });
    }
    if (change.status === "R") renames.push({ from: rel(change.oldPath), to: rel(change.path) });
  }
  if (head === undefined) {
    for (const topPath of await untrackedFiles(repo, pathspec)) {
      const where = classify(topPath, knowledgeTop);
      if (where) requests.push({ topPath, where, side: "after", mode: "100644" });
    }
  }

  const blobs = await readBlobs(repo, requests.flatMap((r) => (r.blob !== undefined && isRegular(r.mode) ? [r.blob] : [])));
  const sides: Sides = { before: [], after: [], renames, ledgerBefore: [], ledgerAfter: [] };
  for (const request of requests) {
    const content = await contentOf(repo, request, blobs);
    if (content === undefined) continue;
    const relPath = rel(request.topPath);
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

/** Every ledger file at HEAD: from the commit, or from the working tree when `head` is undefined (via `readWorkTree`). */
export async function ledgerAt(repo: GitRepo, head: string, knowledgeTop: string): Promise<LedgerText[]> {
  const ledgerTop = knowledgeTop ? `${knowledgeTop}/.ledger` : ".ledger";
  const files = (await listTree(repo, head, ledgerTop)).filter((f) => classify(f.path, knowledgeTop)?.kind === "ledger" && f.mode !== "120000");
  const blobs = await readBlobs(repo, files.map((f) => f.oid));
  return files.flatMap((f) => {
    const blob = blobs.get(f.oid);
    return blob ? [{ path: f.path.slice(repo.prefix.length), text: blob.toString("utf8") }] : [];
  });
}
