/**
 * `.cairn/manifest.json`: which files make up the current index. Every save writes its new files
 * first (a generation directory, maybe a new lexical segment) and then swaps this small file
 * atomically, so a reader sees the old index or the new one, never a mix.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { writeFileAtomic } from "../store/atomic.js";

/** Bump when the on-disk layout or the document mapping changes: a mismatch triggers a rebuild. */
export const INDEX_FORMAT = 7;

export type Manifest = {
  format: number;
  /** The embedder of the saved vectors; null when the index holds none. */
  embedder: { id: string; dims: number } | null;
  /** Directory under .cairn/ written by the last save. */
  generation: string;
  /** Paths relative to .cairn/: the catalogue's table and records file (always), the lexical base segment and delta, the vectors. */
  files: { catalogue: string; records: string; segment: string | null; delta: string | null; vectors: string | null };
  updated: string;
  /**
   * The version of cairn that wrote it. The catalogue keeps each entry's parse (its diagnostics, the fields the gate
   * reads): another version's parser may read the same bytes differently, so its index is rebuilt, not trusted.
   */
  cairn?: string;
  /** The seal of the `.cairn/` it was written in (src/store/cache-seal.ts): an index from elsewhere is rebuilt, not trusted. */
  seal?: string;
};

export type ManifestRead = { kind: "ok"; manifest: Manifest } | { kind: "missing" } | { kind: "corrupt"; reason: string };

export async function readManifest(cacheDir: string): Promise<ManifestRead> {
  let text: string;
  try {
    text = await readFile(path.join(cacheDir, "manifest.json"), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { kind: "missing" };
    return { kind: "corrupt", reason: (error as Error).message };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { kind: "corrupt", reason: `manifest.json is not valid JSON (${(error as Error).message})` };
  }
  if (typeof value !== "object" || value === null) return { kind: "corrupt", reason: "manifest.json does not have the expected shape" };
  const m = value as Partial<Manifest>;
  if (m.format !== INDEX_FORMAT) return { kind: "ok", manifest: m as Manifest }; // the caller rebuilds on a format change
  const files = m.files as Partial<Manifest["files"]> | undefined;
  const optional = (v: unknown) => v === null || (typeof v === "string" && safeRelative(v));
  if (typeof m.generation !== "string" || !files || typeof files.catalogue !== "string" || !safeRelative(files.catalogue) || typeof files.records !== "string" || !safeRelative(files.records) || !optional(files.segment) || !optional(files.delta) || !optional(files.vectors)) {
    return { kind: "corrupt", reason: "manifest.json does not have the expected shape" };
  }
  return { kind: "ok", manifest: m as Manifest };
}

/** A path inside .cairn/ (a hand-edited manifest must not point the index elsewhere). */
function safeRelative(p: string): boolean {
  return p !== "" && !path.isAbsolute(p) && !p.split(/[\\/]/).includes("..");
}

export async function writeManifest(cacheDir: string, manifest: Manifest): Promise<void> {
  await writeFileAtomic(path.join(cacheDir, "manifest.json"), JSON.stringify(manifest));
}
