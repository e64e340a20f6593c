/**
 * The files of a saved index generation in `.cairn/`: reading the generation the manifest names (the segment kept
 * open, so a process saving meanwhile cannot pull it away; read again when another process replaced it meanwhile),
 * and removing the generations a new manifest no longer refers to.
 */
import { closeSync, openSync, readFileSync } from "node:fs";
import { readdir, rm } from "node:fs/promises";
import path from "node:path";
import { cacheSeal } from "../store/cache-seal.js";
import { VERSION } from "../version.js";
import { readCatalogue, type CatalogueDirs } from "./catalogue-file.js";
import type { StoredCatalogue } from "./catalogue-store.js";
import type { SavedLexical } from "./lexical-docs.js";
import { INDEX_FORMAT, readManifest, type Manifest } from "./manifest.js";

/** Reads of the saved index tried when another process replaces it meanwhile, before rebuilding from the entry files. */
const OPEN_ATTEMPTS = 5;

/** A saved index as read: nothing usable (start fresh; `warning` says why when something was wrong), or the generation its manifest names. */
/** `replaces`: the generation of a saved index that is not used (built elsewhere, by another version, damaged), which a save may replace. */
export type SavedIndex = { kind: "fresh"; warning?: string; replaces?: string } | { kind: "saved"; manifest: Manifest; catalogue: StoredCatalogue; lexical: SavedLexical };

/**
 * Read the saved index in `cache`: its manifest, catalogue and lexical files (the segment opened, the rest read when
 * first searched). `afterManifest`: a test seam run between reading the manifest and the files it names.
 */
export async function readSavedIndex(cache: string, dirs: CatalogueDirs, afterManifest?: () => Promise<void>): Promise<SavedIndex> {
  for (let attempt = 1; ; attempt++) {
    const read = await readManifest(cache);
    if (read.kind === "missing") return { kind: "fresh" };
    if (read.kind === "corrupt") return { kind: "fresh", warning: `the index in .cairn/ was unreadable (${read.reason}); rebuilding it from the entry files` };
    const manifest = read.manifest;
    // Not used, but seen: a save replaces it (it is not another process's save since this one opened).
    const replaces = typeof manifest.generation === "string" ? { replaces: manifest.generation } : {};
    if (manifest.format !== INDEX_FORMAT) return { kind: "fresh", warning: `the index format changed (${String(manifest.format).slice(0, 40)} → ${INDEX_FORMAT}); rebuilding`, ...replaces };
    if (manifest.cairn !== VERSION) {
      // Shown as a JSON string and cut: the manifest is a local file, but a damaged one may hold anything.
      const by = typeof manifest.cairn === "string" ? `cairn ${JSON.stringify(manifest.cairn.slice(0, 40))}` : "an earlier cairn";
      return { kind: "fresh", warning: `the index was built by ${by}, this is ${VERSION}: rebuilding it (the entries are read again with this version's rules)`, ...replaces };
    }
    // A committed or copied .cairn/ could claim that an entry with a secret parses clean: only trust what was written here.
    if (manifest.seal === undefined || manifest.seal !== cacheSeal(cache)) return { kind: "fresh", warning: "the index in .cairn/ was not built in this directory (copied, or committed to git); rebuilding it from the entry files", ...replaces };
    await afterManifest?.();
    // The lexical files first: a process saving meanwhile removes the generation it replaced, but a file open here stays readable.
    const lexical = openLexicalFiles(cache, manifest);
    const catalogue = await readCatalogue(path.join(cache, manifest.files.catalogue), path.join(cache, manifest.files.records), dirs);
    if ((catalogue.kind === "corrupt" || lexical.problem) && attempt < OPEN_ATTEMPTS && (await replaced(cache, manifest))) {
      // Another process saved while this one read (a watcher at 100k entries saves for seconds): read its generation
      // instead of rebuilding everything from the entry files.
      if (lexical.fd !== null) closeSync(lexical.fd);
      continue;
    }
    if (catalogue.kind === "corrupt") {
      if (lexical.fd !== null) closeSync(lexical.fd);
      return { kind: "fresh", warning: `the index in .cairn/ was unreadable (${catalogue.reason}); rebuilding it from the entry files`, ...replaces };
    }
    return { kind: "saved", manifest, catalogue: catalogue.saved, lexical: { fd: lexical.fd, delta: lexical.delta, problem: lexical.problem ?? null, debt: catalogue.saved.lexical } };
  }
}

/** The base segment (opened, kept open) and the delta's text of a manifest; `problem` when one is unreadable. */
export function openLexicalFiles(cache: string, manifest: Manifest): { fd: number | null; delta: string | null; problem?: string } {
  let fd: number | null = null;
  try {
    if (manifest.files.segment) fd = openSync(path.join(cache, manifest.files.segment), "r");
    const delta = manifest.files.delta ? readFileSync(path.join(cache, manifest.files.delta), "utf8") : null;
    return { fd, delta };
  } catch (error) {
    return { fd, delta: null, problem: (error as Error).message };
  }
}

/** True when the saved index is no longer the generation `manifest` names (another process saved since). */
export async function replaced(cache: string, manifest: Manifest): Promise<boolean> {
  const now = await readManifest(cache);
  return now.kind === "ok" && now.manifest.generation !== manifest.generation;
}

/** Remove generations, segments and records files the new manifest does not refer to (readers keep theirs open). */
export async function collectGenerations(cache: string, manifest: Manifest): Promise<void> {
  const keep = new Set(Object.values(manifest.files).flatMap((f) => (f ? [f.split("/")[0]!, f] : [])));
  for (const name of await readdir(cache).catch(() => [] as string[])) {
    if (name.startsWith("gen-") && !keep.has(name)) await rm(path.join(cache, name), { recursive: true, force: true });
  }
  // Only files of the names cairn gives them: a directory holding anything else is not cairn's to clean.
  for (const [dir, prefix] of [["segments", "lexical-gen-"], ["records", "records-gen-"]] as const) {
    for (const name of await readdir(path.join(cache, dir)).catch(() => [] as string[])) {
      if (name.startsWith(prefix) && !keep.has(`${dir}/${name}`)) await rm(path.join(cache, dir, name), { force: true });
    }
  }
}
