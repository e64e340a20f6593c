/**
 * On-disk format of the vector store, written so that readers never see a half-written index.
 *
 * A save writes two data files under fresh generation names (`vectors-<gen>.hnsw`, the hnswlib
 * graph; `vectors-<gen>.f32`, the raw normalised vectors as little-endian Float32 by label), each
 * via a temp file + fsync + rename, and only then swaps in the manifest `vectors.json` (also temp +
 * rename). The manifest names the data files with their byte size and sha256, so a reader either
 * sees the old complete set or the new complete set; a truncated or altered file fails the check.
 * The previous generation's files are kept (a reader may have just read the old manifest); older
 * ones and stale temp files from crashed saves are removed by the next save.
 */
import { createHash, randomBytes } from "node:crypto";
import { createReadStream, mkdirSync, rmSync } from "node:fs";
import { open, readdir, readFile, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import * as z from "zod";
import { CairnError } from "../errors.js";

/** File name of the manifest inside the index directory. */
export const MANIFEST_FILE = "vectors.json";
/** Bumped whenever the on-disk layout changes; a mismatch makes load fail so the caller rebuilds. */
export const FORMAT_VERSION = 1;
/** Stale temp files older than this (ms) are removed by a save; younger ones may belong to a live writer. */
const STALE_TEMP_MS = 60_000;

const DATA_FILE_RE = /^vectors-[a-z0-9]+-[a-f0-9]+\.(hnsw|f32)$/;
const TEMP_FILE_RE = /^vectors(-[a-z0-9]+-[a-f0-9]+\.(hnsw|f32)|\.json)\.tmp-/;

const fileRefSchema = z.object({
  file: z.string().regex(DATA_FILE_RE),
  bytes: z.number().int().min(0),
  sha256: z.string().regex(/^[a-f0-9]{64}$/),
});

const manifestSchema = z.object({
  format: z.literal("cairn-vectors"),
  version: z.number().int(),
  dims: z.number().int().min(1),
  space: z.literal("cosine"),
  m: z.number().int().min(2),
  efConstruction: z.number().int().min(1),
  efSearch: z.number().int().min(1),
  /** Label -> entry id; null for a deleted label. */
  labels: z.array(z.string().nullable()),
  index: fileRefSchema,
  vectors: fileRefSchema,
});

export type FileRef = z.infer<typeof fileRefSchema>;
export type VectorManifest = z.infer<typeof manifestSchema>;
/** What a save provides; the file references are filled in by `writeVectorFiles`. */
export type ManifestDraft = Omit<VectorManifest, "format" | "version" | "index" | "vectors">;

/** A save whose graph file is written (to a temp file) and whose matching state is captured. */
export type PendingSave = {
  dir: string;
  gen: string;
  graphTemp: string;
  draft: ManifestDraft;
  /** Must not change until the save finishes. */
  vectors: Float32Array;
};

/**
 * First, synchronous half of a save: creates `dir`, has `capture` write the hnswlib graph to a
 * fresh temp file and return the manifest draft and vectors matching it. Being synchronous, it
 * captures the state at the time of the call.
 */
export function beginVectorSave(dir: string, capture: (graphFile: string) => Pick<PendingSave, "draft" | "vectors">): PendingSave {
  const gen = `${Date.now().toString(36)}-${randomBytes(4).toString("hex")}`;
  const graphTemp = tempName(dir, `vectors-${gen}.hnsw`);
  try {
    mkdirSync(dir, { recursive: true });
    return { dir, gen, graphTemp, ...capture(graphTemp) };
  } catch (error) {
    rmSync(graphTemp, { force: true });
    throw new CairnError("IO", `Could not save the vector index to ${dir}: ${messageOf(error)}`, { cause: error });
  }
}

/** Second half of a save: writes the vectors, then swaps in the manifest atomically, then cleans up. */
export async function finishVectorSave(save: PendingSave): Promise<void> {
  const { dir, gen, draft, vectors } = save;
  const previous = await readManifestQuietly(dir);
  const indexName = `vectors-${gen}.hnsw`;
  const vectorsName = `vectors-${gen}.f32`;
  try {
    await publish(save.graphTemp, path.join(dir, indexName));
    const bytes = Buffer.from(vectors.buffer, vectors.byteOffset, vectors.byteLength);
    await writeAtomically(dir, vectorsName, bytes);
    const manifest: VectorManifest = {
      format: "cairn-vectors",
      version: FORMAT_VERSION,
      ...draft,
      index: await describeFile(dir, indexName),
      vectors: { file: vectorsName, bytes: bytes.byteLength, sha256: createHash("sha256").update(bytes).digest("hex") },
    };
    await writeAtomically(dir, MANIFEST_FILE, Buffer.from(JSON.stringify(manifest)));
    await syncDirectory(dir);
  } catch (error) {
    await rm(save.graphTemp, { force: true });
    await rm(path.join(dir, indexName), { force: true });
    await rm(path.join(dir, vectorsName), { force: true });
    throw new CairnError("IO", `Could not save the vector index to ${dir}: ${messageOf(error)}`, { cause: error });
  }
  // Keep the generation now on disk (another writer may have swapped in a newer one) and the previous one.
  const keep = new Set([indexName, vectorsName]);
  for (const manifest of [previous, await readManifestQuietly(dir)]) {
    if (manifest) keep.add(manifest.index.file).add(manifest.vectors.file);
  }
  await removeLeftovers(dir, keep);
}

/** Reads and validates the manifest; throws CairnError("IO") saying what is missing or wrong. */
export async function readVectorManifest(dir: string): Promise<VectorManifest> {
  const file = path.join(dir, MANIFEST_FILE);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === "ENOENT";
    const what = missing ? `no vector index at ${file}` : `could not read ${file}: ${messageOf(error)}`;
    throw new CairnError("IO", `Could not load the vector index: ${what}; rebuild the index`, { cause: error });
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw corrupt(file, "it is not valid JSON", error);
  }
  const parsed = manifestSchema.safeParse(raw);
  if (!parsed.success) throw corrupt(file, `unexpected shape (${parsed.error.issues[0]?.message ?? "invalid"})`);
  const manifest = parsed.data;
  if (manifest.version !== FORMAT_VERSION) {
    throw corrupt(file, `format version ${manifest.version}, expected ${FORMAT_VERSION}`);
  }
  return manifest;
}

/**
 * Reads the raw vectors file after checking its size and checksum against the manifest, into the
 * front of a new array of `capacity` vectors (so the caller can grow without copying again).
 */
export async function readVectorData(dir: string, manifest: VectorManifest, capacity: number): Promise<Float32Array> {
  const file = path.join(dir, manifest.vectors.file);
  const expectedBytes = manifest.labels.length * manifest.dims * 4;
  if (manifest.vectors.bytes !== expectedBytes) {
    throw corrupt(file, `manifest says ${manifest.vectors.bytes} bytes, expected ${expectedBytes} for ${manifest.labels.length} vectors`);
  }
  const out = new Float32Array(Math.max(capacity, manifest.labels.length) * manifest.dims);
  // Read straight into the array: one copy of the vectors in memory, not two.
  const view = new Uint8Array(out.buffer, 0, expectedBytes);
  let size: number;
  try {
    const handle = await open(file, "r");
    try {
      size = (await handle.stat()).size;
      let filled = 0;
      while (size === expectedBytes && filled < expectedBytes) {
        const { bytesRead } = await handle.read(view, filled, expectedBytes - filled, filled);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      if (size === expectedBytes) size = filled;
    } finally {
      await handle.close();
    }
  } catch (error) {
    throw corrupt(file, `could not read it (${messageOf(error)})`, error);
  }
  checkFile(file, manifest.vectors, size, size === expectedBytes ? createHash("sha256").update(view).digest("hex") : "");
  return out;
}

/** Checks the hnswlib graph file's size and checksum; returns its path for hnswlib to read. */
export async function verifyIndexFile(dir: string, manifest: VectorManifest): Promise<string> {
  const file = path.join(dir, manifest.index.file);
  let actual: FileRef;
  try {
    actual = await describeFile(dir, manifest.index.file);
  } catch (error) {
    throw corrupt(file, `could not read it (${messageOf(error)})`, error);
  }
  checkFile(file, manifest.index, actual.bytes, actual.sha256);
  return file;
}

/** A CairnError("IO") for a damaged index file, telling the caller to rebuild. */
export function corrupt(file: string, reason: string, cause?: unknown): CairnError {
  return new CairnError("IO", `Vector index file ${file} is damaged: ${reason}; rebuild the index`, { cause });
}

function checkFile(file: string, expected: FileRef, bytes: number, sha256: string): void {
  if (bytes !== expected.bytes) {
    throw corrupt(file, `${bytes} bytes, expected ${expected.bytes} (truncated or partly written?)`);
  }
  if (sha256 !== expected.sha256) throw corrupt(file, `checksum ${sha256.slice(0, 12)}…, expected ${expected.sha256.slice(0, 12)}…`);
}

async function describeFile(dir: string, name: string): Promise<FileRef> {
  const hash = createHash("sha256");
  let bytes = 0;
  for await (const chunk of createReadStream(path.join(dir, name))) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).byteLength;
  }
  return { file: name, bytes, sha256: hash.digest("hex") };
}

function tempName(dir: string, name: string): string {
  return path.join(dir, `${name}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`);
}

async function writeAtomically(dir: string, name: string, bytes: Uint8Array): Promise<void> {
  const tmp = tempName(dir, name);
  try {
    const handle = await open(tmp, "w");
    try {
      await handle.writeFile(bytes);
    } finally {
      await handle.close();
    }
    await publish(tmp, path.join(dir, name));
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
}

/** Flushes a finished temp file to disk and renames it into place. */
async function publish(tmp: string, file: string): Promise<void> {
  const handle = await open(tmp, "r+");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(tmp, file);
}

/** Makes the renames durable; not supported on every platform, so failures are ignored. */
async function syncDirectory(dir: string): Promise<void> {
  try {
    const handle = await open(dir, "r");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // best effort
  }
}

async function readManifestQuietly(dir: string): Promise<VectorManifest | undefined> {
  try {
    return await readVectorManifest(dir);
  } catch {
    return undefined;
  }
}

/** Removes data files of older generations and stale temp files left by crashed saves. */
async function removeLeftovers(dir: string, keep: Set<string>): Promise<void> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return;
  }
  const now = Date.now();
  for (const name of names) {
    const file = path.join(dir, name);
    try {
      if (DATA_FILE_RE.test(name) && !keep.has(name)) await rm(file, { force: true });
      else if (TEMP_FILE_RE.test(name) && now - (await stat(file)).mtimeMs > STALE_TEMP_MS) await rm(file, { force: true });
    } catch {
      // another process may have removed it first; leftovers are harmless
    }
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
