/**
 * The files of a saved index generation in `.cairn/`: opening the ones a manifest names (the segment kept open,
 * so a process saving meanwhile cannot pull it away), telling when another process replaced the generation,
 * and removing the generations a new manifest no longer refers to.
 */
import { openSync, readFileSync } from "node:fs";
import { readdir, rm } from "node:fs/promises";
import path from "node:path";
import { readManifest, type Manifest } from "./manifest.js";

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
  for (const dir of ["segments", "records"]) {
    for (const name of await readdir(path.join(cache, dir)).catch(() => [] as string[])) {
      if (!keep.has(`${dir}/${name}`)) await rm(path.join(cache, dir, name), { force: true });
    }
  }
}
