/** `.cairn/manifest.json`: format version, embedder, the current generation directory and per-entry state. */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { writeFileAtomic } from "../store/atomic.js";
import type { IndexMeta } from "./document.js";

/** Bump when the on-disk layout or the document mapping changes: a mismatch triggers a rebuild. */
export const INDEX_FORMAT = 2;

export type ManifestEntry = IndexMeta & {
  /** Hash of the lexical fields (frontmatter title/tags/agents and verify text are lexical-only). */
  lexicalHash: string;
  mtimeMs: number;
  size: number;
};

export type Manifest = {
  format: number;
  embedder: { id: string; dims: number } | null;
  /** Directory under .cairn/ holding this generation's lexical and vector files. */
  generation: string;
  updated: string;
  entries: Record<string, ManifestEntry>;
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
  try {
    const value = JSON.parse(text) as Manifest;
    if (typeof value !== "object" || value === null || typeof value.entries !== "object" || value.entries === null || typeof value.generation !== "string") {
      return { kind: "corrupt", reason: "manifest.json does not have the expected shape" };
    }
    // A hand-edited or damaged entry (e.g. `null`) means "rebuild", never a crash later on.
    const bad = Object.entries(value.entries).find(([, entry]) => !isManifestEntry(entry));
    if (bad) return { kind: "corrupt", reason: `manifest.json entry ${JSON.stringify(bad[0])} is not a valid index record` };
    return { kind: "ok", manifest: value };
  } catch (error) {
    return { kind: "corrupt", reason: `manifest.json is not valid JSON (${(error as Error).message})` };
  }
}

function isManifestEntry(value: unknown): value is ManifestEntry {
  if (typeof value !== "object" || value === null) return false;
  const e = value as Record<string, unknown>;
  const strings = ["path", "state", "contentHash", "lexicalHash"].every((k) => typeof e[k] === "string");
  const numbers = ["mtimeMs", "size"].every((k) => typeof e[k] === "number");
  const lists = ["agents", "tags", "anchors"].every((k) => Array.isArray(e[k]));
  return strings && numbers && lists;
}

export async function writeManifest(cacheDir: string, manifest: Manifest): Promise<void> {
  await writeFileAtomic(path.join(cacheDir, "manifest.json"), JSON.stringify(manifest));
}
