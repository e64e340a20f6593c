/** The catalogue file: written in pieces, read back whole, across piece boundaries and with shared anchored sources. */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { CatalogueRecord } from "../../src/indexing/catalogue.js";
import { readCatalogue, writeCatalogue, type SavedCatalogue } from "../../src/indexing/catalogue-file.js";
import { testdir } from "../helpers/fixture.js";

const DIRS = { active: "knowledge", archived: "knowledge/archive" };

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
    const file = path.join(dir, "catalogue.json");
    const saved: SavedCatalogue = {
      records: Array.from({ length: 2_500 }, (_, k) => record(k)),
      broken: [{ path: "knowledge/broken.md", state: "active", problems: [], mtimeMs: 1, size: 2 }],
      lexical: { stale: ["entry-3"], gone: ["entry-gone"] },
    };
    await writeCatalogue(file, saved, DIRS);
    const text = await readFile(file, "utf8");
    expect(() => JSON.parse(text)).not.toThrow();
    const read = await readCatalogue(file, DIRS);
    expect(read.kind).toBe("ok");
    if (read.kind !== "ok") return;
    expect(read.saved.records).toEqual(saved.records);
    expect(read.saved.broken).toEqual(saved.broken);
    expect(read.saved.lexical).toEqual(saved.lexical);
    // The anchored code's source paths are listed once for the file (13 of them), not once per record.
    expect((JSON.parse(text) as { sources: string[] }).sources).toHaveLength(13);
  });

  it("an empty catalogue is a valid file too", async () => {
    const file = path.join(await testdir({}), "catalogue.json");
    await writeCatalogue(file, { records: [], broken: [], lexical: { stale: [], gone: [] } }, DIRS);
    expect(await readCatalogue(file, DIRS)).toEqual({ kind: "ok", saved: { records: [], broken: [], lexical: { stale: [], gone: [] } } });
  });
});
