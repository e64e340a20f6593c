import { mkdir, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CLEAN, type LintCache, readLintCache, readLintLookup, writeLintCache } from "../../src/check/lint-cache.js";
import { lintCatalogue } from "../../src/check/catalogue-lint.js";
import { openKnowledgeBase } from "../../src/index.js";
import { entryText, SOURCE_FILES, testdir } from "../helpers/fixture.js";

const warning = { file: "knowledge/a.md", line: 7, column: 1, rule: "anchor-moved", severity: "warning" as const, message: "moved" };

/** A cache with every kind of result: clean and problem content, anchors with shared deps, a git token, a volatile one, diagnostics. */
function sample(key: string): LintCache {
  return {
    key,
    content: new Map([
      ["h1", CLEAN],
      ["h2", { diagnostics: [{ ...warning, rule: "secret-github-token", severity: "error" }], directives: [{ line: 3, column: 1, rules: ["anchor-moved"] }] }],
    ]),
    anchors: new Map([
      ["knowledge/a.md", { key: "h1|2026-02-12|", deps: ["src/a.ts\u00001.5:10", "src/b.ts\u00002:20"], diagnostics: [warning] }],
      ["knowledge/b.md", { key: "h2||d1", deps: ["src/b.ts\u00002:20"], git: "tok", diagnostics: [] }],
      ["knowledge/c.md", { key: "h3||", deps: [], volatile: true as const, diagnostics: [] }],
    ]),
  };
}

describe("the lint cache file (.cairn/lint.json)", () => {
  it("reads back what was written: content by hash, anchor results by path with their deps, git token, volatility and diagnostics", async () => {
    const dir = await testdir();
    await writeLintCache(dir, sample("k1"));
    expect(await readLintCache(dir, "k1")).toEqual(sample("k1"));
    // Results of other settings or another build are not used.
    expect(await readLintCache(dir, "k2")).toEqual({ key: "k2", content: new Map(), anchors: new Map() });
  });

  it("a lookup of a few entries (the inject gate) reads exactly their results; a partial cache written is merged into the file", async () => {
    const dir = await testdir();
    await writeLintCache(dir, sample("k1"));
    const full = sample("k1");
    const lookup = await readLintLookup(dir, "k1");
    const subset = lookup.subset({ hashes: new Set(["h2", "missing"]), paths: new Set(["knowledge/b.md", "knowledge/none.md"]) });
    expect(subset).toEqual({ key: "k1", content: new Map([["h2", full.content.get("h2")]]), anchors: new Map([["knowledge/b.md", full.anchors.get("knowledge/b.md")]]), partial: true });
    // What a gate computes for one more entry joins the file; every other result stays.
    subset.content.set("h9", CLEAN);
    await writeLintCache(dir, subset);
    const merged = sample("k1");
    merged.content.set("h9", CLEAN);
    expect(await readLintCache(dir, "k1")).toEqual(merged);
    // A lookup in a damaged file finds nothing (the gate then lints its candidates itself).
    await writeFile(path.join(dir, "lint.json"), "{\"format\":");
    expect((await readLintLookup(dir, "k1")).subset({ hashes: new Set(["h1"]), paths: new Set(["knowledge/a.md"]) })).toEqual({ key: "k1", content: new Map(), anchors: new Map(), partial: true });
  });

  it("a damaged, truncated, older-format or malformed file is ignored (empty), never a crash", async () => {
    const dir = await testdir();
    await writeLintCache(dir, sample("k1"));
    const file = path.join(dir, "lint.json");
    const good = await readFile(file, "utf8");
    const stored = JSON.parse(good);
    const bad = [
      good.slice(0, good.length / 2),
      "not json",
      JSON.stringify({ ...stored, version: 1 }),
      JSON.stringify({ format: "cairn-lint-cache", key: "k1", clean: [], content: {}, deps: [], anchors: {} }), // the format before version 2
      JSON.stringify({ ...stored, uses: [...stored.uses.slice(0, -1), 99] }), // a dep index out of range
      JSON.stringify({ ...stored, uses: [...stored.uses, 0] }), // more uses than paths
      JSON.stringify({ ...stored, keys: stored.keys.slice(1) }),
      JSON.stringify({ ...stored, diagnostics: { 0: "x" } }),
    ];
    for (const text of bad) {
      await writeFile(file, text);
      expect(await readLintCache(dir, "k1")).toEqual({ key: "k1", content: new Map(), anchors: new Map() });
    }
  });

  it("status over a damaged cache recomputes every result, gives the same diagnostics, and writes a good cache", async () => {
    const root = await testdir({ ...SOURCE_FILES, "knowledge/a.md": entryText(), "knowledge/b.md": entryText({ finding: "Retries never back off; add jitter." }) });
    const lint = async () => {
      const kb = await openKnowledgeBase({ root, embedder: null });
      const view = await kb.knowledge();
      return lintCatalogue({ layout: kb.layout, config: kb.config, view, events: (await kb.ledger.state()).state, today: kb.today() });
    };
    const first = await lint();
    expect(first.computed).toEqual({ content: 2, anchors: 2 });
    const file = path.join(root, ".cairn/lint.json");
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, (await readFile(file, "utf8")).slice(0, 40));
    const again = await lint();
    expect(again.computed).toEqual({ content: 2, anchors: 2 });
    expect(again.diagnostics).toEqual(first.diagnostics);
    expect((await lint()).computed).toEqual({ content: 0, anchors: 0 });
  });

  it("status keeps the file as it is when nothing was computed, and prunes the results of a removed entry", async () => {
    const root = await testdir({ ...SOURCE_FILES, "knowledge/a.md": entryText(), "knowledge/b.md": entryText({ finding: "Retries never back off; add jitter." }) });
    const lint = async () => {
      const kb = await openKnowledgeBase({ root, embedder: null });
      const view = await kb.knowledge();
      return lintCatalogue({ layout: kb.layout, config: kb.config, view, events: (await kb.ledger.state()).state, today: kb.today() });
    };
    await lint();
    const file = path.join(root, ".cairn/lint.json");
    // An old mtime: a rewrite would change it.
    await utimes(file, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    const old = (await stat(file)).mtimeMs;
    await lint();
    expect((await stat(file)).mtimeMs).toBe(old);
    await rm(path.join(root, "knowledge/b.md"));
    const after = await lint();
    expect(after.computed).toEqual({ content: 0, anchors: 0 });
    const stored = JSON.parse(await readFile(file, "utf8"));
    expect(stored.paths).toEqual(["knowledge/a.md"]);
    expect(stored.clean).toHaveLength(1);
  });
});
