/** The catalogue as saved in a generation directory: records, files that do not parse, and the lexical work still owed. */
import { readFile } from "node:fs/promises";
import { writeFileAtomic } from "../store/atomic.js";
import type { BrokenFile, CatalogueData, CatalogueRecord } from "./catalogue.js";

const FORMAT = "cairn-catalogue";

/** Ids whose lexical document must be re-analyzed from their file (`stale`) or dropped (`gone`) when the lexical index is next loaded. */
export type LexicalDebt = { stale: string[]; gone: string[] };

export type SavedCatalogue = CatalogueData & { lexical: LexicalDebt };

export async function writeCatalogue(file: string, saved: SavedCatalogue): Promise<void> {
  await writeFileAtomic(file, JSON.stringify({ format: FORMAT, ...saved }));
}

/** Read a saved catalogue; a damaged one is `corrupt` with the reason (the caller rebuilds). */
export async function readCatalogue(file: string): Promise<{ kind: "ok"; saved: SavedCatalogue } | { kind: "corrupt"; reason: string }> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(file, "utf8"));
  } catch (error) {
    return { kind: "corrupt", reason: `the catalogue is unreadable (${(error as Error).message})` };
  }
  const v = value as Partial<SavedCatalogue> & { format?: unknown };
  if (typeof v !== "object" || v === null || v.format !== FORMAT || !Array.isArray(v.records) || !Array.isArray(v.broken)) {
    return { kind: "corrupt", reason: "catalogue.json does not have the expected shape" };
  }
  // A hand-edited or damaged record (e.g. `null`) means "rebuild", never a crash later on.
  const bad = v.records.findIndex((r) => !isRecord(r));
  if (bad >= 0) {
    const id = (v.records[bad] as { id?: unknown } | null)?.id;
    return { kind: "corrupt", reason: `catalogue.json record ${typeof id === "string" ? JSON.stringify(id) : `#${bad + 1}`} is not a valid index record` };
  }
  if (!v.broken.every(isBroken)) return { kind: "corrupt", reason: "catalogue.json lists a damaged unreadable-file record" };
  const lexical = v.lexical && Array.isArray(v.lexical.stale) && Array.isArray(v.lexical.gone) ? v.lexical : { stale: [], gone: [] };
  return { kind: "ok", saved: { records: v.records, broken: v.broken, lexical } };
}

function isRecord(value: unknown): value is CatalogueRecord {
  if (typeof value !== "object" || value === null) return false;
  const r = value as Record<string, unknown>;
  return (
    ["id", "path", "fileHash", "lexicalHash", "contentHash", "verifyHash"].every((k) => typeof r[k] === "string") &&
    (r.state === "active" || r.state === "archived") &&
    ["mtimeMs", "size"].every((k) => typeof r[k] === "number") &&
    typeof r.frontmatter === "object" && r.frontmatter !== null &&
    Array.isArray(r.anchors)
  );
}

function isBroken(value: unknown): value is BrokenFile {
  if (typeof value !== "object" || value === null) return false;
  const b = value as Record<string, unknown>;
  return typeof b.path === "string" && Array.isArray(b.problems) && typeof b.mtimeMs === "number" && typeof b.size === "number";
}
