/**
 * One catalogue record as one JSON array (no repeated key names: ~40% smaller and faster to parse at 100k
 * entries): [id, path ("" when it is `<dir>/<id>.md`), state (0 active, 1 archived), frontmatter, anchors as
 * [path, startLine|0, endLine|0, symbol|"", glob 0|1], fileHash, lexicalHash, contentHash, verifyHash,
 * mtimeMs, size, flags (1 racy), keyLines|0, problems|0, unparsed|0, code|0]; code is
 * [hash, anchors key, [source path number, size, mtimeMs, text hash|0, …], [anchor index, start, end, …]]
 * with the source paths listed once in the file (`sources`): many entries anchor into the same file.
 */
import type { CatalogueRecord, CodeRecord } from "./catalogue.js";

type CodeTuple = [string, string, Array<number | string>, number[]];
export type RecordTuple = [string, string, 0 | 1, Record<string, unknown>, Array<[string, number, number, string, 0 | 1]>, string, string, string, string, number, number, number, unknown, unknown, unknown, CodeTuple | 0];

/** Where an entry of each state lives, relative to the root (`knowledge`, `knowledge/archive`): paths there are stored as "". */
export type CatalogueDirs = { active: string; archived: string };

export const derivedPath = (dirs: CatalogueDirs, id: string, state: CatalogueRecord["state"]): string => `${state === "active" ? dirs.active : dirs.archived}/${id}.md`;

/** `sources`: source path → its number in the file, extended with the paths this record cites first. */
export function encodeRecord(r: CatalogueRecord, dirs: CatalogueDirs, sources: Map<string, number>): RecordTuple {
  return [
    r.id,
    r.path === derivedPath(dirs, r.id, r.state) ? "" : r.path,
    r.state === "active" ? 0 : 1,
    r.frontmatter,
    r.anchors.map((a) => [a.path, a.startLine ?? 0, a.endLine ?? 0, a.symbol ?? "", a.glob ? 1 : 0]),
    r.fileHash,
    r.lexicalHash,
    r.contentHash,
    r.verifyHash,
    r.mtimeMs,
    r.size,
    r.racy ? 1 : 0,
    r.keyLines ?? 0,
    r.problems ?? 0,
    r.unparsed ?? 0,
    encodeCode(r.code, sources),
  ];
}

function encodeCode(code: CodeRecord | undefined, sources: Map<string, number>): CodeTuple | 0 {
  if (!code) return 0;
  const flat: Array<number | string> = [];
  for (const s of code.sources) {
    let n = sources.get(s.path);
    if (n === undefined) sources.set(s.path, (n = sources.size));
    flat.push(n, s.size, s.mtimeMs, s.hash ?? 0);
  }
  return [code.hash, code.anchors, flat, code.places.flatMap((p) => [p.index, p.start, p.end])];
}

/**
 * The record of a tuple; undefined when the tuple is not a valid record. Written for speed (a command that reads
 * every record decodes 10k of them): no spreads, no slices; optional keys are added only when set.
 */
export function decodeRecord(t: unknown, dirs: CatalogueDirs, sources: readonly unknown[]): CatalogueRecord | undefined {
  if (!Array.isArray(t) || t.length !== 16) return undefined;
  const [id, file, state, frontmatter, anchors, fileHash, lexicalHash, contentHash, verifyHash, mtimeMs, size, flags, keyLines, problems, unparsed, codeTuple] = t as RecordTuple;
  const code = decodeCode(codeTuple, sources);
  if (code === null) return undefined;
  if (typeof id !== "string" || !id || typeof file !== "string" || (state !== 0 && state !== 1)) return undefined;
  if (typeof frontmatter !== "object" || frontmatter === null || Array.isArray(frontmatter) || !Array.isArray(anchors)) return undefined;
  if (typeof fileHash !== "string" || typeof lexicalHash !== "string" || typeof contentHash !== "string" || typeof verifyHash !== "string" || typeof mtimeMs !== "number" || typeof size !== "number") return undefined;
  const places: CatalogueRecord["anchors"] = [];
  for (const a of anchors) {
    if (!Array.isArray(a) || typeof a[0] !== "string" || typeof a[1] !== "number" || typeof a[2] !== "number" || typeof a[3] !== "string") return undefined;
    const place: CatalogueRecord["anchors"][number] = { path: a[0] };
    if (a[4]) place.glob = true;
    if (a[1]) (place.startLine = a[1]), (place.endLine = a[2] || a[1]);
    if (a[3]) place.symbol = a[3];
    places.push(place);
  }
  const st = state === 0 ? "active" : "archived";
  const record: CatalogueRecord = { id, path: file || derivedPath(dirs, id, st), state: st, frontmatter: frontmatter as CatalogueRecord["frontmatter"], anchors: places, fileHash, lexicalHash, contentHash, verifyHash, mtimeMs, size };
  if (keyLines && typeof keyLines === "object") record.keyLines = keyLines as CatalogueRecord["keyLines"];
  if (Array.isArray(problems)) record.problems = problems as CatalogueRecord["problems"];
  if (flags === 1) record.racy = true;
  if (Array.isArray(unparsed)) record.unparsed = unparsed as CatalogueRecord["unparsed"];
  record.code = code;
  return record;
}

function decodeCode(value: unknown, sources: readonly unknown[]): CodeRecord | undefined | null {
  if (value === 0 || value === undefined) return undefined;
  if (!Array.isArray(value) || value.length !== 4) return null;
  const [hash, anchors, flat, places] = value as CodeTuple;
  if (typeof hash !== "string" || typeof anchors !== "string" || !Array.isArray(flat) || !Array.isArray(places) || flat.length % 4 || places.length % 3) return null;
  const code: CodeRecord = { hash, anchors, sources: [], places: [] };
  for (let i = 0; i < flat.length; i += 4) {
    const n = flat[i];
    const size = flat[i + 1];
    const mtimeMs = flat[i + 2];
    const text = flat[i + 3];
    const file = typeof n === "number" ? sources[n] : undefined;
    if (typeof file !== "string" || typeof size !== "number" || typeof mtimeMs !== "number" || (text !== 0 && typeof text !== "string")) return null;
    code.sources.push({ path: file, size, mtimeMs, hash: typeof text === "string" ? text : undefined });
  }
  for (let i = 0; i < places.length; i += 3) {
    const index = places[i];
    const start = places[i + 1];
    const end = places[i + 2];
    if (typeof index !== "number" || typeof start !== "number" || typeof end !== "number") return null;
    code.places.push({ index, start, end });
  }
  return code;
}
