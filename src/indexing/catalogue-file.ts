/**
 * The catalogue as saved in a generation directory: one line per record (catalogue-codec.ts), then one
 * line of trailer — the checksum of the records' lines, the table of every file's id, path, state, size
 * and mtime, the anchored sources and their signatures, the agents' scopes, the files that do not parse
 * and the lexical work still owed. Opening reads the trailer and checks the checksum; records are
 * decoded when asked for (catalogue-store.ts).
 */
import { readFile } from "node:fs/promises";
import { crc32 } from "node:zlib";
import { writeFileAtomic } from "../store/atomic.js";
import type { BrokenFile, CatalogueData } from "./catalogue.js";
import { derivedPath, encodeRecord, type CatalogueDirs } from "./catalogue-codec.js";
import { HAS_CODE, RACY, ROW, StoredCatalogue, UNPARSED, type LexicalDebt } from "./catalogue-store.js";

export type { CatalogueDirs } from "./catalogue-codec.js";
export type { LexicalDebt } from "./catalogue-store.js";

const FORMAT = "cairn-catalogue";
/** Bump when the record tuple or the trailer changes. */
const VERSION = 5;

export type SavedCatalogue = CatalogueData & { lexical: LexicalDebt };

type Trailer = {
  format: typeof FORMAT;
  version: typeof VERSION;
  count: number;
  /** crc32 of every byte before the trailer. */
  crc: number;
  rows: Array<string | number>;
  sources: string[];
  signatures: Array<string | number>;
  scopes: string[];
  broken: BrokenFile[];
  lexical: LexicalDebt;
};

/** Records encoded and written per piece of the file. */
const WRITE_CHUNK = 1_024;

/**
 * Written in pieces of WRITE_CHUNK records: a save at 100k entries never holds the whole text at once. A
 * catalogue opened from a file and not wholly decoded copies the lines of the records it never decoded.
 */
export async function writeCatalogue(file: string, data: CatalogueData, lexical: LexicalDebt, dirs: CatalogueDirs): Promise<void> {
  await writeFileAtomic(file, catalogueBytes(data, lexical, dirs));
}

function* catalogueBytes(data: CatalogueData, lexical: LexicalDebt, dirs: CatalogueDirs): Generator<Buffer> {
  const stored = data instanceof StoredCatalogue && !data.materialized ? data : undefined;
  const count = stored ? stored.size : data.records.length;
  // A stored catalogue's undecoded lines number their sources as it did: its list is kept, in order, and extended.
  const sources = new Map<string, number>((stored?.sources ?? []).map((s, n) => [s, n]));
  const signatures = new Map<string, Array<string | number>>();
  const rows: Array<string | number> = [];
  const scopes = new Set<string>(stored?.scopes ?? []);
  const ids = new Set<string>();
  if (stored) for (let k = 0; k < stored.signatures.length; k += 4) addSignature(signatures, stored.signatures.slice(k, k + 4));
  let crc = 0;
  for (let at = 0; at < count; at += WRITE_CHUNK) {
    const piece: Array<string | Buffer> = [];
    for (let i = at; i < Math.min(count, at + WRITE_CHUNK); i++) {
      const record = stored ? stored.decodedAt(i) : data.records[i]!;
      if (!record) {
        piece.push(stored!.rawLine(i));
        rows.push(...stored!.row(i));
        ids.add(stored!.idAt(i));
        continue;
      }
      piece.push(JSON.stringify(encodeRecord(record, dirs, sources)) + "\n");
      const flags = (record.racy ? RACY : 0) | (record.unparsed ? UNPARSED : 0) | (record.code ? HAS_CODE : 0);
      rows.push(record.id, record.path === derivedPath(dirs, record.id, record.state) ? "" : record.path, record.state === "active" ? 0 : 1, record.mtimeMs, record.size, flags);
      for (const s of record.code?.sources ?? []) addSignature(signatures, [sources.get(s.path)!, s.size, s.mtimeMs, s.hash ?? 0]);
      if (!ids.has(record.id)) {
        ids.add(record.id);
        if (record.state === "active") for (const scope of strings(record.frontmatter.agents)) scopes.add(scope);
      }
    }
    const bytes = Buffer.concat(piece.map((p) => (typeof p === "string" ? Buffer.from(p, "utf8") : p)));
    crc = crc32(bytes, crc);
    yield bytes;
  }
  const trailer: Trailer = {
    format: FORMAT,
    version: VERSION,
    count,
    crc,
    rows,
    sources: [...sources.keys()],
    signatures: [...signatures.values()].flat(),
    scopes: [...scopes].sort(),
    broken: data.broken,
    lexical,
  };
  yield Buffer.from(JSON.stringify(trailer) + "\n", "utf8");
}

function addSignature(signatures: Map<string, Array<string | number>>, sig: Array<string | number>): void {
  signatures.set(sig.join("\0"), sig);
}

function strings(value: unknown): string[] {
  if (typeof value === "string") return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/** Open a saved catalogue (records decoded later, when asked for); a damaged one is `corrupt` with the reason (the caller rebuilds). */
export async function readCatalogue(file: string, dirs: CatalogueDirs): Promise<{ kind: "ok"; saved: StoredCatalogue } | { kind: "corrupt"; reason: string }> {
  let text: Buffer;
  try {
    text = await readFile(file);
  } catch (error) {
    return { kind: "corrupt", reason: `the catalogue is unreadable (${(error as Error).message})` };
  }
  const corrupt = (why: string) => ({ kind: "corrupt" as const, reason: `catalogue.json ${why}` });
  if (text.length === 0 || text[text.length - 1] !== 0x0a) return corrupt("is cut short (no trailer line)");
  const start = text.lastIndexOf(0x0a, text.length - 2) + 1;
  let trailer: Partial<Trailer>;
  try {
    trailer = JSON.parse(text.toString("utf8", start)) as Partial<Trailer>;
  } catch (error) {
    return corrupt(`has an unreadable trailer (${(error as Error).message})`);
  }
  if (typeof trailer !== "object" || trailer === null || trailer.format !== FORMAT || trailer.version !== VERSION) return corrupt("does not have the expected format or version");
  const { count, rows, sources, signatures, scopes, broken, lexical } = trailer;
  if (typeof count !== "number" || !Number.isInteger(count) || count < 0 || !Array.isArray(rows) || rows.length !== count * ROW) return corrupt("has a damaged table of records");
  if (!Array.isArray(sources) || !sources.every((s) => typeof s === "string") || !Array.isArray(signatures) || signatures.length % 4 || !Array.isArray(scopes) || !Array.isArray(broken)) {
    return corrupt("has a damaged trailer");
  }
  if (crc32(text.subarray(0, start)) !== trailer.crc) return corrupt("does not match its checksum (damaged or edited)");
  const starts = new Uint32Array(count + 1);
  let at = 0;
  for (let i = 0; i < count; i++) {
    starts[i] = at;
    const end = text.indexOf(0x0a, at);
    if (end < 0 || end >= start) return corrupt(`has ${i} record lines, not ${count}`);
    at = end + 1;
  }
  starts[count] = at;
  if (at !== start) return corrupt(`has more record lines than ${count}`);
  for (let i = 0; i < count; i++) {
    const k = i * ROW;
    if (typeof rows[k] !== "string" || !rows[k] || typeof rows[k + 1] !== "string" || (rows[k + 2] !== 0 && rows[k + 2] !== 1) || typeof rows[k + 3] !== "number" || typeof rows[k + 4] !== "number" || typeof rows[k + 5] !== "number") {
      return corrupt(`has a damaged table row for record #${i + 1}`);
    }
  }
  if (!broken.every(isBroken)) return corrupt("lists a damaged unreadable-file record");
  const debt = lexical && Array.isArray(lexical.stale) && Array.isArray(lexical.gone) ? lexical : { stale: [], gone: [] };
  return { kind: "ok", saved: new StoredCatalogue({ file, dirs, text, starts, rows, sources, signatures, scopes: scopes.filter((s): s is string => typeof s === "string"), broken, lexical: debt }) };
}

function isBroken(value: unknown): value is BrokenFile {
  if (typeof value !== "object" || value === null) return false;
  const b = value as Record<string, unknown>;
  return typeof b.path === "string" && Array.isArray(b.problems) && typeof b.mtimeMs === "number" && typeof b.size === "number";
}
