/** The catalogue file: written in pieces, read back whole or a record at a time, checked by its checksum, saved again without decoding what was not touched. */
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { crc32 } from "node:zlib";
import { describe, expect, it } from "vitest";
import type { CatalogueRecord } from "../../src/indexing/catalogue.js";
import { readCatalogue, writeCatalogue, type SavedCatalogue } from "../../src/indexing/catalogue-file.js";
import { DamagedRecords } from "../../src/indexing/catalogue-lines.js";
import { savedSignaturesAt, signaturePath } from "../../src/indexing/entry-docs.js";
import { decodeTable, encodeTable, type Table } from "../../src/indexing/catalogue-table.js";
import type { StoredCatalogue } from "../../src/indexing/catalogue-store.js";
import { testdir } from "../helpers/fixture.js";

const DIRS = { active: "knowledge", archived: "knowledge/archive" };
/** The records file next to a catalogue's table. */
const recordsFile = (table: string) => path.join(path.dirname(table), "records.jsonl");
/** Save a catalogue with its records in a new file next to its table (or appended to `current`). */
const save = (file: string, data: Parameters<typeof writeCatalogue>[2], lexical: Parameters<typeof writeCatalogue>[3], current: string | null = null) =>
  writeCatalogue(file, { current, fresh: recordsFile(file) }, data, lexical, DIRS);
const open = (file: string, records = recordsFile(file)) => readCatalogue(file, records, DIRS);

type Stat = { rel: string; state: CatalogueRecord["state"]; mtimeMs: number; size: number };
const sameFiles = (store: StoredCatalogue, files: Stat[]) => store.sameFiles(files, Float64Array.from(files, (f) => f.mtimeMs), Float64Array.from(files, (f) => f.size));

function record(k: number): CatalogueRecord {
  const state = k % 7 === 0 ? "archived" : "active";
  return {
    id: `entry-${k}`,
    path: k % 11 === 0 ? `knowledge/renamed-${k}.md` : `${state === "active" ? DIRS.active : DIRS.archived}/entry-${k}.md`,
    state,
    frontmatter: { title: `Entry ${k}, "quoted" and \\ escaped`, tags: ["a", `t${k % 5}`], lastConfirmed: "2026-11-01" },
    anchors: [{ path: `src/mod${k % 13}.ts`, startLine: k % 40 + 1, endLine: k % 40 + 3, symbol: `fn${k}` }, { path: "lib/*.js", glob: true }],
    fileHash: `f${k}`.padEnd(32, "0"),
    lexicalHash: `l${k}`.padEnd(32, "0"),
    contentHash: `c${k}`.padEnd(32, "0"),
    verifyHash: `v${k}`.padEnd(32, "0"),
    ...(k % 3 === 0 ? { keyLines: { lastConfirmed: 4 } } : {}),
    mtimeMs: 1_700_000_000_000 + k,
    size: 500 + k,
    ...(k % 17 === 0 ? { racy: true as const } : {}),
    code:
      k % 2 === 0
        ? { hash: `h${k}`, anchors: `k${k}`, sources: [{ path: `src/mod${k % 13}.ts`, size: 90, mtimeMs: 5, hash: `s${k % 13}` }], places: [{ index: 0, start: 1, end: 3 }] }
        : undefined,
  };
}

describe("catalogue file", () => {
  it("reads back exactly what was written, across the pieces it is written in", async () => {
    const dir = await testdir({});
    const file = path.join(dir, "catalogue.bin");
    const saved: SavedCatalogue = {
      records: Array.from({ length: 2_500 }, (_, k) => record(k)),
      broken: [{ path: "knowledge/broken.md", state: "active", problems: [], mtimeMs: 1, size: 2 }],
      lexical: { stale: ["entry-3"], gone: ["entry-gone"] },
    };
    await save(file, saved, saved.lexical);
    const lines = (await readFile(recordsFile(file), "utf8")).split("\n");
    expect(lines).toHaveLength(2_500 + 1); // a line per record, and the final newline
    for (const line of lines.slice(0, -1)) expect(() => JSON.parse(line)).not.toThrow();
    const read = await open(file);
    expect(read.kind).toBe("ok");
    if (read.kind !== "ok") return;
    // The anchored code's source paths are listed once for the file (13 of them), not once per record.
    expect(read.saved.storage?.table.sources).toHaveLength(13);
    expect(read.saved.records).toEqual(saved.records);
    expect(read.saved.broken).toEqual(saved.broken);
    expect(read.saved.lexical).toEqual(saved.lexical);
  });

  it("decodes a record only when asked for it, by path or by id, and knows the files without decoding any", async () => {
    const file = path.join(await testdir({}), "catalogue.bin");
    const records = Array.from({ length: 40 }, (_, k) => record(k)).sort((a, b) => (a.path < b.path ? -1 : 1));
    await save(file, { records, broken: [] }, { stale: [], gone: [] });
    const read = await open(file);
    if (read.kind !== "ok") throw new Error(read.reason);
    const store = read.saved;
    expect(store.size).toBe(40);
    expect(store.recordAt(records[5]!.path)).toEqual(records[5]);
    expect(store.byId().get("entry-22")).toEqual(records.find((r) => r.id === "entry-22"));
    expect([...store.byId().keys()].sort()).toEqual(records.map((r) => r.id).sort());
    expect(store.materialized).toBe(false);
    const files = records.map((r) => ({ rel: r.path, state: r.state, mtimeMs: r.mtimeMs, size: r.size }));
    // Racy records are compared by content by a full refresh: the table alone never says "unchanged" while one is.
    expect(sameFiles(store, files)).toBe(false);
    const settled = records.map((r) => ({ ...r, racy: undefined }));
    for (const r of settled) delete r.racy;
    await save(file, { records: settled, broken: [] }, { stale: [], gone: [] });
    const again = await open(file);
    if (again.kind !== "ok") throw new Error(again.reason);
    expect(sameFiles(again.saved, files)).toBe(true);
    expect(sameFiles(again.saved, files.slice(1))).toBe(false);
    expect(sameFiles(again.saved, files.map((f, i) => (i === 7 ? { ...f, size: f.size + 1 } : f)))).toBe(false);
    expect(sameFiles(again.saved, files.map((f, i) => (i === 9 ? { ...f, mtimeMs: f.mtimeMs + 1 } : f)))).toBe(false);
    expect(sameFiles(again.saved, files.map((f, i) => (i === 3 ? { ...f, state: f.state === "active" ? ("archived" as const) : ("active" as const) } : f)))).toBe(false);
    expect(again.saved.materialized).toBe(false);
  });

  it("a save of an opened catalogue copies the records it never decoded and re-encodes the ones it did (their code may have changed)", async () => {
    const file = path.join(await testdir({}), "catalogue.bin");
    const records = Array.from({ length: 30 }, (_, k) => record(k)).sort((a, b) => (a.path < b.path ? -1 : 1));
    await save(file, { records, broken: [] }, { stale: [], gone: [] });
    const read = await open(file);
    if (read.kind !== "ok") throw new Error(read.reason);
    const changed = read.saved.at(4);
    changed.code = { hash: "new", anchors: "k", sources: [{ path: "src/brand-new.ts", size: 1, mtimeMs: 2, hash: undefined }], places: [] };
    const next = path.join(path.dirname(file), "next", "catalogue.bin");
    await mkdir(path.dirname(next));
    await save(next, read.saved, { stale: ["entry-1"], gone: [] });
    const reread = await open(next);
    if (reread.kind !== "ok") throw new Error(reread.reason);
    expect(reread.saved.storage?.table.sources).toContain("src/brand-new.ts");
    expect(reread.saved.records).toEqual(records.map((r, i) => (i === 4 ? { ...r, code: changed.code } : r)));
    expect(reread.saved.lexical).toEqual({ stale: ["entry-1"], gone: [] });
  });

  it("answers what retrieval filters on (status, agents, anchor paths, anchored files) from its table, decoding nothing", async () => {
    const file = path.join(await testdir({}), "catalogue.bin");
    // `agents:` written as one string is read as a list of one, as retrieval reads it from a parsed entry.
    const agentsOf = (k: number) => (k % 3 === 0 ? { agents: ["security", `agent-${k % 2}`] } : k % 5 === 0 ? { agents: "perf" as unknown as string[] } : {});
    const records: CatalogueRecord[] = Array.from({ length: 40 }, (_, k) => record(k))
      .map((r, k) => ({ ...r, frontmatter: { ...r.frontmatter, ...(k % 4 === 0 ? { status: "disputed" as const } : {}), ...agentsOf(k) } }))
      .sort((a, b) => (a.path < b.path ? -1 : 1));
    await save(file, { records, broken: [] }, { stale: [], gone: [] });
    const read = await open(file);
    if (read.kind !== "ok") throw new Error(read.reason);
    const store = read.saved;
    for (const [k, r] of records.entries()) {
      expect(store.statusAt(k)).toBe(r.frontmatter.status ?? "observed");
      expect(store.agentsAt(k)).toEqual(typeof r.frontmatter.agents === "string" ? [r.frontmatter.agents] : (r.frontmatter.agents ?? []));
      expect(store.anchorPathsAt(k)).toEqual(r.anchors.map((a) => (a.glob ? { path: a.path, glob: true } : { path: a.path })));
      expect(store.hasCodeAt(k)).toBe(r.code !== undefined);
      expect(savedSignaturesAt(store, k)?.map((n) => signaturePath(store.storage!.table, n))).toEqual(r.code?.sources.map((s) => s.path));
      expect(store.positionAt(r.path)).toBe(k);
    }
    expect(store.scopes()).toEqual(["agent-0", "agent-1", "perf", "security"].filter((a) => records.some((r) => r.state === "active" && [r.frontmatter.agents].flat().includes(a))));
    expect(Array.from({ length: store.size }, (_, k) => store.decodedAt(k)).filter(Boolean)).toEqual([]);
  });

  it("a patched catalogue keeps the saved lines of the records it kept and saves them as they were", async () => {
    const file = path.join(await testdir({}), "catalogue.bin");
    const records = Array.from({ length: 30 }, (_, k) => record(k)).sort((a, b) => (a.path < b.path ? -1 : 1));
    await save(file, { records, broken: [] }, { stale: [], gone: [] });
    const read = await open(file);
    if (read.kind !== "ok") throw new Error(read.reason);
    const added: CatalogueRecord = { ...record(99), path: "knowledge/aaa-new.md", frontmatter: { title: "New", agents: ["newcomer"] } };
    const replaced: CatalogueRecord = { ...records[7]!, frontmatter: { ...records[7]!.frontmatter, status: "disputed" }, fileHash: "changed".padEnd(32, "0") };
    // Drop position 3, replace 7, add one in front; the rest stay encoded.
    const entries = [added, ...records.map((_, k) => (k === 7 ? replaced : k)).filter((_, k) => k !== 3)];
    const patched = read.saved.patched(entries, []);
    expect(patched.size).toBe(30);
    expect(Array.from({ length: patched.size }, (_, k) => patched.decodedAt(k)).filter(Boolean)).toEqual([added, replaced]);
    expect(patched.statusAt(7)).toBe("disputed");
    expect(patched.sameAs(1, read.saved, 0)).toBe(true);
    expect(patched.sameAs(7, read.saved, 7)).toBe(false);
    const next = path.join(path.dirname(file), "next", "catalogue.bin");
    await mkdir(path.dirname(next));
    await save(next, patched, { stale: [], gone: [] });
    const lines = (text: string) => text.split("\n").slice(0, -1);
    const before = lines(await readFile(recordsFile(file), "utf8"));
    const after = lines(await readFile(recordsFile(next), "utf8"));
    // Kept records: their saved lines, byte for byte.
    expect(after.filter((l) => before.includes(l))).toHaveLength(28);
    const reread = await open(next);
    if (reread.kind !== "ok") throw new Error(reread.reason);
    expect(reread.saved.agentsAt(0)).toEqual(["newcomer"]);
    expect(reread.saved.records).toEqual(entries.map((e) => (typeof e === "number" ? records[e] : e)));
  });

  it("a save appends only new and changed records to the records file it read from; readers of the older table still read theirs", async () => {
    const file = path.join(await testdir({}), "catalogue.bin");
    const records = Array.from({ length: 30 }, (_, k) => record(k)).sort((a, b) => (a.path < b.path ? -1 : 1));
    await save(file, { records, broken: [] }, { stale: [], gone: [] });
    const shared = recordsFile(file);
    const size = (await stat(shared)).size;
    const read = await open(file);
    if (read.kind !== "ok") throw new Error(read.reason);
    const replaced: CatalogueRecord = { ...records[7]!, fileHash: "changed".padEnd(32, "0") };
    const next = path.join(path.dirname(file), "next", "catalogue.bin");
    await mkdir(path.dirname(next));
    const written = await save(next, read.saved.patched(records.map((_, k) => (k === 7 ? replaced : k)), []), { stale: [], gone: [] }, shared);
    expect(written.records).toBe(shared);
    const appended = (await readFile(shared, "utf8")).slice(size);
    expect(appended.split("\n").slice(0, -1).map((l) => (JSON.parse(l) as [string])[0])).toEqual([replaced.id]);
    const reread = await open(next, shared);
    if (reread.kind !== "ok") throw new Error(reread.reason);
    expect(reread.saved.records).toEqual(records.map((r, k) => (k === 7 ? replaced : r)));
    // The older table's lines were not touched: a process that opened it still reads its records.
    expect(Array.from({ length: read.saved.size }, (_, k) => read.saved.at(k))).toEqual(records);
    // Read whole, the first write's bytes are checked with one crc and the appended line with its own: a damaged appended line is found.
    const text = await readFile(shared, "utf8");
    await writeFile(shared, text.slice(0, size) + text.slice(size).replace(replaced.id, replaced.id.replace("-", "_")));
    const damaged = await open(next, shared);
    if (damaged.kind !== "ok") throw new Error(damaged.reason);
    expect(() => damaged.saved.loadLines()).toThrow(DamagedRecords);
    await writeFile(shared, text);

    // Once most of the file would be lines no table uses, a new compact file is written instead.
    const again = await open(next, shared);
    if (again.kind !== "ok") throw new Error(again.reason);
    const most = records.map((r, k) => (k < 20 ? { ...r, size: r.size + 1 } : k));
    const third = path.join(path.dirname(file), "third", "catalogue.bin");
    await mkdir(path.dirname(third));
    const compact = await save(third, again.saved.patched(most, []), { stale: [], gone: [] }, shared);
    expect(compact.records).toBe(recordsFile(third));
    const last = await open(third);
    if (last.kind !== "ok") throw new Error(last.reason);
    expect(last.saved.records).toEqual(records.map((r, k) => (k < 20 ? { ...r, size: r.size + 1 } : k === 7 ? replaced : r)));
  });

  it("a table row that refers to nothing makes the file corrupt (the index is rebuilt)", async () => {
    const file = path.join(await testdir({}), "catalogue.bin");
    await save(file, { records: [record(1), record(2)], broken: [] }, { stale: [], gone: [] });
    // Forged tables (their checksum recomputed): still refused.
    const original = await readFile(file);
    const forge = async (change: (table: Table) => void) => {
      const decoded = decodeTable(Buffer.from(original));
      if ("problem" in decoded) throw new Error(decoded.problem);
      change(decoded.table);
      await writeFile(file, encodeTable(decoded.table, decoded.broken, decoded.lexical));
    };
    await forge((t) => (t.agents[0] = 99)); // no such set
    expect(await open(file)).toMatchObject({ kind: "corrupt", reason: expect.stringMatching(/damaged table row for record #1/) });
    await forge((t) => ((t.agents[0] = 0), (t.sets[0] = [1_000])));
    expect(await open(file)).toMatchObject({ kind: "corrupt" });
  });

  it("a cut or edited table, or a cut records file, makes the catalogue corrupt (the index is rebuilt)", async () => {
    const file = path.join(await testdir({}), "catalogue.bin");
    await save(file, { records: [record(1), record(2)], broken: [] }, { stale: [], gone: [] });
    const table = await readFile(file);
    const lines = await readFile(recordsFile(file));
    await writeFile(file, table.subarray(0, table.length - 8));
    expect(await open(file)).toMatchObject({ kind: "corrupt" });
    const edited = Buffer.from(table);
    edited[edited.length - 3]! ^= 1;
    await writeFile(file, edited);
    expect(await open(file)).toMatchObject({ kind: "corrupt", reason: expect.stringMatching(/checksum/) });
    await writeFile(file, "");
    expect(await open(file)).toMatchObject({ kind: "corrupt" });
    await writeFile(file, table);
    await writeFile(recordsFile(file), lines.subarray(0, lines.length - 20));
    expect(await open(file)).toMatchObject({ kind: "corrupt", reason: expect.stringMatching(/records file is .* bytes, not at least/) });
  });

  it("an edited record line is found when it is read, never decoded as a wrong record", async () => {
    const file = path.join(await testdir({}), "catalogue.bin");
    await save(file, { records: [record(1), record(2)], broken: [] }, { stale: [], gone: [] });
    const text = await readFile(recordsFile(file), "utf8");
    await writeFile(recordsFile(file), text.replace('"entry-1"', '"entry-9"'));
    const read = await open(file);
    if (read.kind !== "ok") throw new Error(read.reason);
    // The table is intact: what it says holds without reading a record.
    expect(read.saved.idAt(0)).toBe("entry-1");
    expect(read.saved.at(1).id).toBe("entry-2");
    expect(() => read.saved.at(0)).toThrow(DamagedRecords);
    expect(() => read.saved.loadLines()).toThrow(/record 1 of .*records\.jsonl does not match its checksum/);
  });

  it("a forged record (checksum recomputed) is a clear error when it is decoded, not a crash later", async () => {
    const file = path.join(await testdir({}), "catalogue.bin");
    await save(file, { records: [record(1), record(2)], broken: [] }, { stale: [], gone: [] });
    const lines = (await readFile(recordsFile(file), "utf8")).split("\n");
    const decoded = decodeTable(await readFile(file));
    if ("problem" in decoded) throw new Error(decoded.problem);
    const forged = "[1,2,3]\n";
    const second = `${lines[1]!}\n`;
    decoded.table.crcs[0] = crc32(Buffer.from(forged));
    decoded.table.lengths[0] = forged.length;
    decoded.table.offsets[1] = forged.length;
    decoded.table.recordsSize = forged.length + Buffer.byteLength(second);
    decoded.table.compact = [0, 0];
    await writeFile(recordsFile(file), forged + second);
    await writeFile(file, encodeTable(decoded.table, decoded.broken, decoded.lexical));
    const read = await open(file);
    if (read.kind !== "ok") throw new Error(read.reason);
    expect(read.saved.at(1).id).toBe("entry-2");
    expect(() => read.saved.at(0)).toThrow(/the index in \.cairn\/ is damaged \(record 1 of .*records\.jsonl does not decode\); run `cairn index --rebuild`/);
  });

  it("an empty catalogue is a valid file too", async () => {
    const file = path.join(await testdir({}), "catalogue.bin");
    await save(file, { records: [], broken: [] }, { stale: [], gone: [] });
    const read = await open(file);
    if (read.kind !== "ok") throw new Error(read.reason);
    expect({ records: read.saved.records, broken: read.saved.broken, lexical: read.saved.lexical }).toEqual({ records: [], broken: [], lexical: { stale: [], gone: [] } });
  });
});
