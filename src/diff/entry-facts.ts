/**
 * What the ledger projection needs of the entries a change's ledger events name, at one revision: where each id's
 * file is and its `lastConfirmed` (the frontmatter date that can move the decay counter's start). Only files that can
 * hold one of those ids are parsed: the file name says so, or the file declares an `id:` of its own.
 */
import { listEntryFiles, readEntryBytes } from "../store/files.js";
import type { Layout } from "../store/layout.js";
import type { EntryState } from "../entry/types.js";
import { idFromPath } from "../entry/id.js";
import { listTree, readBlobs, type GitRepo } from "./git.js";
import { pathspecs, toLayoutPath, type RealDirs } from "./real-dirs.js";
import { classify } from "./versions.js";

/** One entry as the projection sees it. */
export type EntryFacts = { id: string; path: string; state: EntryState; lastConfirmed?: string };

type Candidate = { path: string; state: EntryState; bytes: () => Promise<Buffer | undefined> };

/** Entries with one of `ids` in commit `rev`; an id in both places is the active one. */
export async function entryFactsAt(repo: GitRepo, rev: string, real: RealDirs, ids: ReadonlySet<string>): Promise<Map<string, EntryFacts>> {
  const shown = (topPath: string) => toLayoutPath(real, topPath) ?? topPath.slice(repo.prefix.length);
  const files = (await Promise.all(pathspecs(real).map((spec) => listTree(repo, rev, spec)))).flat();
  const entries = files.flatMap((f) => {
    const where = classify(shown(f.path), real.knowledge.shown);
    return where?.kind === "entry" && (f.mode === "100644" || f.mode === "100755") ? [{ ...f, path: shown(f.path), state: where.state }] : [];
  });
  const blobs = await readBlobs(repo, entries.map((e) => e.oid));
  return factsOf(entries.map((e) => ({ path: e.path, state: e.state, bytes: async () => blobs.get(e.oid) })), ids);
}

/** Entries with one of `ids` in the working tree (regular files only, as every command reads them). */
export async function entryFactsInWorkTree(layout: Layout, ids: ReadonlySet<string>): Promise<Map<string, EntryFacts>> {
  const files = await listEntryFiles(layout).catch(() => []);
  return factsOf(
    files.map((file) => ({
      path: file.rel,
      state: file.state,
      bytes: async () => {
        const read = await readEntryBytes(layout, file);
        return "bytes" in read ? read.bytes : undefined;
      },
    })),
    ids,
  );
}

async function factsOf(candidates: readonly Candidate[], ids: ReadonlySet<string>): Promise<Map<string, EntryFacts>> {
  const out = new Map<string, EntryFacts>();
  if (ids.size === 0) return out;
  const { parseEntry } = await import("../entry/parse.js");
  for (const candidate of candidates) {
    const bytes = await candidate.bytes();
    if (bytes === undefined) continue;
    // The frontmatter's own `id:` line; without one the id is the file name.
    if (!ids.has(idFromPath(candidate.path)) && !/^---\r?\n(?:[^\n]*\n)*?id\s*:/.test(bytes.subarray(0, 4096).toString("utf8").replace(/^\uFEFF/, ""))) continue;
    const { entry } = parseEntry(bytes, { file: candidate.path, state: candidate.state });
    const id = entry?.id ?? idFromPath(candidate.path);
    if (!ids.has(id)) continue;
    const known = out.get(id);
    if (known && (known.state === "active" || candidate.state === "archived")) continue;
    const lastConfirmed = entry?.frontmatter.lastConfirmed;
    out.set(id, { id, path: candidate.path, state: candidate.state, ...(typeof lastConfirmed === "string" ? { lastConfirmed } : {}) });
  }
  return out;
}
