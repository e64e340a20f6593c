/** The index as saved in a project's `.cairn/`: its manifest and its catalogue, decoded. */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { readCatalogue } from "../../src/indexing/catalogue-file.js";

const DIRS = { active: "knowledge", archived: "knowledge/archive" };

export async function savedIndex(root: string) {
  const manifest = JSON.parse(await readFile(path.join(root, ".cairn/manifest.json"), "utf8")) as { files: { catalogue: string; records: string; segment: string } };
  const read = await readCatalogue(path.join(root, ".cairn", manifest.files.catalogue), path.join(root, ".cairn", manifest.files.records), DIRS);
  if (read.kind !== "ok") throw new Error(read.reason);
  return { manifest, catalogue: { records: read.saved.records, lexical: read.saved.lexical, broken: read.saved.broken } };
}
