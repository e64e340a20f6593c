import { cp, mkdir, readdir, readFile, rename, rm, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Embedder } from "../../src/indexing/embedder.js";
import { openKnowledgeBase } from "../../src/index.js";
import { StoredCatalogue } from "../../src/indexing/catalogue-store.js";
import { SearchIndex } from "../../src/indexing/search-index.js";
import { fakeEmbedder } from "../helpers/fake-embedder.js";
import { entryText, SOURCE_FILES, testdir } from "../helpers/fixture.js";
import { savedIndex } from "../helpers/saved-index.js";
import { VERSION } from "../../src/version.js";

const ENTRIES = {
  "knowledge/ctx-cancel.md": entryText({ finding: "Middleware swallows context cancellation errors; check ctx.Err() after upstream calls." }),
  "knowledge/sql-injection.md": entryText({ finding: "Query builders that concatenate user input into SQL strings allow injection; use placeholders." }),
  "knowledge/retry-storm.md": entryText({ finding: "Retry loops without jitter or backoff cause thundering herds against a recovering service." }),
};

/** Vectors are indexed only when the embedder ranks (config `embedder.weight` > 0). */
const RANKED = { embedder: { provider: "use-lite" as const, weight: 0.2 } };

async function setup(embedder: Embedder | null = fakeEmbedder()) {
  const root = await testdir({ ...SOURCE_FILES, ...ENTRIES });
  const kb = await openKnowledgeBase({ root, embedder, config: RANKED });
  return { root, kb };
}

describe("search index: opened while another process saves", () => {
  it("reads the other process's generation instead of rebuilding everything from the entry files", async () => {
    const root = await testdir({ ...SOURCE_FILES, ...ENTRIES });
    await (await openKnowledgeBase({ root, embedder: null })).index();
    const kb = await openKnowledgeBase({ root, embedder: null });
    let saves = 0;
    // Between reading the manifest and the files it names, another process saves (and removes the generation it replaced),
    // twice: a watcher at 100k entries saves for longer than a search takes to open.
    const afterManifest = async () => {
      if (saves >= 2) return;
      saves++;
      await writeFile(path.join(root, "knowledge/retry-storm.md"), entryText({ finding: `Retries without backoff overload dependencies (edit ${saves}).` }));
      const other = await openKnowledgeBase({ root, embedder: null });
      expect(await other.index()).toMatchObject({ updated: ["retry-storm"], saved: true });
    };
    const index = await SearchIndex.open(kb.layout, null, { afterManifest });
    expect(saves).toBe(2);
    expect(index.takeOpenWarnings()).toEqual([]);
    await index.loadLexical();
    const report = await index.refresh();
    expect(report).toMatchObject({ added: [], updated: [], removed: [] });
    expect(index.takeOpenWarnings()).toEqual([]);
  });
});

describe("search index: a catalogue opened from .cairn/", () => {
  /** Files written an hour ago: a stat of a file written within 2 s may hide a later write, so such records are re-read by content. */
  async function settledProject(extra: Record<string, string> = {}) {
    const entries = { ...ENTRIES, ...extra };
    const root = await testdir({ ...SOURCE_FILES, ...entries });
    const past = new Date(Date.now() - 3_600_000);
    for (const rel of [...Object.keys(SOURCE_FILES), ...Object.keys(entries)]) await utimes(path.join(root, rel), past, past);
    await (await openKnowledgeBase({ root, embedder: null })).index();
    return root;
  }

  it("stays encoded when nothing changed: a search decodes only the records it shows", async () => {
    const root = await settledProject();
    const kb = await openKnowledgeBase({ root, embedder: null });
    const found = await kb.search("context cancellation");
    expect(found.results.map((r) => r.id)).toEqual(["ctx-cancel"]);
    const { index } = await kb.searchIndex();
    expect(index.catalogue).toBeInstanceOf(StoredCatalogue);
    expect((index.catalogue as StoredCatalogue).materialized).toBe(false);
    expect(index.agentScopes()).toEqual([]);
    expect((await index.recordAt("knowledge/sql-injection.md"))?.id).toBe("sql-injection");
    // Lifecycle reads still see every record.
    expect((await kb.knowledge()).entries.map((e) => e.id)).toEqual(["ctx-cancel", "retry-storm", "sql-injection"]);
  });

  it("re-parses only an edited file: the other records stay encoded, and what is saved is what a rebuild saves", async () => {
    const root = await settledProject();
    const file = path.join(root, "knowledge/retry-storm.md");
    await writeFile(file, (await readFile(file, "utf8")).replace("thundering herds", "thundering herds of clients"));
    const kb = await openKnowledgeBase({ root, embedder: null });
    const found = await kb.search("thundering herds of clients");
    expect(found.results[0]?.id).toBe("retry-storm");
    const { index } = await kb.searchIndex();
    const catalogue = index.catalogue;
    expect(catalogue.materialized).toBe(false);
    const inMemory = Array.from({ length: catalogue.size }, (_, k) => catalogue.decodedAt(k)?.id).filter(Boolean);
    // The edited entry alone: the search showed its results from the table.
    expect(inMemory).toEqual(["retry-storm"]);
    const patchedSave = (await savedIndex(root)).catalogue;
    await (await openKnowledgeBase({ root, embedder: null })).index({ rebuild: true });
    const rebuilt = (await savedIndex(root)).catalogue;
    expect(patchedSave.records.map(({ racy: _racy, ...r }) => r)).toEqual(rebuilt.records.map(({ racy: _racy, ...r }) => r));
  });

  it("a save appends the lines of the records it changed to the records file, never rewriting the others", async () => {
    const others = Object.fromEntries(Array.from({ length: 10 }, (_, k) => [`knowledge/other-${k}.md`, entryText({ finding: `Unrelated finding number ${k} about caches.` })]));
    const root = await settledProject(others);
    const first = (await savedIndex(root)).manifest.files.records;
    const file = path.join(root, ".cairn", first);
    const lineCount = async () => (await readFile(file, "utf8")).split("\n").length - 1;
    expect(await lineCount()).toBe(13);
    const kb = await openKnowledgeBase({ root, embedder: null });
    const edit = async (id: string, from: string, to: string) => {
      const entry = path.join(root, "knowledge", `${id}.md`);
      await writeFile(entry, (await readFile(entry, "utf8")).replace(from, to));
    };
    await edit("retry-storm", "thundering herds", "thundering herds of clients");
    expect(await kb.index()).toMatchObject({ updated: ["retry-storm"], saved: true });
    expect((await savedIndex(root)).manifest.files.records).toBe(first);
    expect(await lineCount()).toBe(14);
    // The same process saves again: only what changed since its last save is appended.
    await edit("sql-injection", "placeholders", "bound placeholders");
    expect(await kb.index()).toMatchObject({ updated: ["sql-injection"], saved: true });
    expect(await lineCount()).toBe(15);
    expect(await readdir(path.join(root, ".cairn/records"))).toEqual([path.basename(first)]);
    const saved = (await savedIndex(root)).catalogue.records;
    await (await openKnowledgeBase({ root, embedder: null })).index({ rebuild: true });
    expect(saved.map(({ racy: _racy, ...r }) => r)).toEqual((await savedIndex(root)).catalogue.records.map(({ racy: _racy, ...r }) => r));
  });

  it("an index saved by an earlier version (another index or catalogue format, another cairn) is rebuilt, with a warning", async () => {
    const root = await settledProject();
    const search = async () => (await openKnowledgeBase({ root, embedder: null })).search("context cancellation");
    const manifestFile = path.join(root, ".cairn/manifest.json");
    const manifest = JSON.parse(await readFile(manifestFile, "utf8")) as { format: number; files: { catalogue: string } };
    await writeFile(manifestFile, JSON.stringify({ ...manifest, format: manifest.format - 1 }));
    const older = await search();
    expect(older.warnings.join("\n")).toMatch(/the index format changed \(\d+ → \d+\); rebuilding/);
    expect(older.results[0]?.id).toBe("ctx-cancel");

    // Another version of cairn may parse the same bytes differently (a new rule): its catalogue of parses is not reused.
    for (const cairn of ["0.0.1", undefined]) {
      const written = JSON.parse(await readFile(manifestFile, "utf8")) as { cairn?: string };
      expect(written.cairn).toBe(VERSION);
      await writeFile(manifestFile, JSON.stringify({ ...written, cairn }));
      const other = await search();
      expect(other.warnings.join("\n")).toContain(`the index was built by ${cairn ? 'cairn "0.0.1"' : "an earlier cairn"}, this is ${VERSION}: rebuilding it`);
      expect(other.results[0]?.id).toBe("ctx-cancel");
    }

    const { manifest: now } = await savedIndex(root);
    const table = path.join(root, ".cairn", now.files.catalogue);
    const bytes = await readFile(table);
    bytes.writeUInt32LE(bytes.readUInt32LE(4) - 1, 4); // the catalogue's own version
    await writeFile(table, bytes);
    const found = await search();
    expect(found.warnings.join("\n")).toMatch(/does not have the expected format or version\); rebuilding it from the entry files/);
    expect(found.results[0]?.id).toBe("ctx-cancel");
    expect((await search()).warnings).toEqual([]);
  });

  it("status and check save over an index they do not use (copied here, or another version's): the next run reuses it", async () => {
    const first = await settledProject();
    // The same project copied elsewhere: its .cairn/ was not built there (its seal is another directory's).
    const root = await testdir();
    await cp(first, root, { recursive: true, preserveTimestamps: true });
    const manifestFile = path.join(root, ".cairn/manifest.json");
    const copied = (JSON.parse(await readFile(manifestFile, "utf8")) as { generation: string }).generation;
    for (const command of ["status", "check"] as const) {
      const kb = await openKnowledgeBase({ root, embedder: null });
      const warnings: string[] = [];
      if (command === "status") warnings.push(...(await kb.status()).warnings);
      else await kb.check();
      // Before the fix, a catalogue-only refresh took the copied generation for another process's save, never saved,
      // and every later status or check parsed every entry again.
      const now = (JSON.parse(await readFile(manifestFile, "utf8")) as { generation: string }).generation;
      expect(now).not.toBe(copied);
      const again = await openKnowledgeBase({ root, embedder: null });
      expect((await again.status()).warnings.join("\n")).not.toMatch(/rebuilding/);
      // Another version's index: the same.
      const written = JSON.parse(await readFile(manifestFile, "utf8")) as Record<string, unknown>;
      await writeFile(manifestFile, JSON.stringify({ ...written, cairn: "0.0.1" }));
    }
    const last = await openKnowledgeBase({ root, embedder: null });
    await last.status();
    expect((JSON.parse(await readFile(manifestFile, "utf8")) as { cairn: string }).cairn).toBe(VERSION);
  });

  it("a records file damaged after it was saved is found when a command reads the records, and rebuilt with a warning", async () => {
    const root = await settledProject();
    const { manifest } = await savedIndex(root);
    const records = path.join(root, ".cairn", manifest.files.records);
    const text = await readFile(records, "utf8");
    await writeFile(records, text.replace('"retry-storm"', '"retry-storX"'));
    const kb = await openKnowledgeBase({ root, embedder: null });
    // A search reads the table only: the damage is not read, the results are right.
    expect((await kb.search("thundering herds")).results.map((r) => r.id)).toEqual(["retry-storm"]);
    // The inject gate reads its candidates' records one by one: the damaged one is found, the catalogue rebuilt, the entry injected.
    const injected = await (await openKnowledgeBase({ root, embedder: null })).inject({ run: "r1", agent: "a", keywords: ["retry", "jitter", "backoff"], dryRun: true });
    expect(injected.entries.map((e) => e.id)).toEqual(["retry-storm"]);
    // A command that reads every record reads the records file whole: the damage is found, the catalogue rebuilt and saved.
    const opened = await (await openKnowledgeBase({ root, embedder: null })).searchIndex();
    expect(opened.warnings.join("\n")).toMatch(/record \d of .*records-gen-.*\.jsonl does not match its checksum\); rebuilding it from the entry files/);
    expect(opened.index.catalogue.records.map((r) => r.id)).toEqual(["ctx-cancel", "retry-storm", "sql-injection"]);
    const status = await (await openKnowledgeBase({ root, embedder: null })).status();
    expect(status.entries.map((e) => e.id).sort()).toEqual(["ctx-cancel", "retry-storm", "sql-injection"]);
    expect(await readFile(path.join(root, ".cairn", (await savedIndex(root)).manifest.files.records), "utf8")).not.toContain("retry-storX");
    expect((await (await openKnowledgeBase({ root, embedder: null })).searchIndex()).warnings).toEqual([]);
  });

  it("sees an in-place edit of the same size, and a changed anchored source file, without a full re-check being asked for", async () => {
    const root = await settledProject();
    const file = path.join(root, "knowledge/retry-storm.md");
    const text = await readFile(file, "utf8");
    await writeFile(file, text.replace("jitter", "JITTER")); // same size, new mtime
    const kb = await openKnowledgeBase({ root, embedder: null });
    const index = await SearchIndex.open(kb.layout, null);
    await index.loadLexical();
    expect(await index.refresh()).toMatchObject({ updated: ["retry-storm"], codeChanged: [] });
    await index.save();

    const past = new Date(Date.now() - 3_600_000);
    await utimes(file, past, past);
    await index.refresh();
    await index.save();
    await writeFile(path.join(root, "src/auth.ts"), "export function handleRequest() {\n  return fetch('y', { signal });\n}\n");
    const reopened = await SearchIndex.open(kb.layout, null);
    await reopened.loadLexical();
    const report = await reopened.refresh();
    expect(report.updated).toEqual([]);
    expect(report.codeChanged).toEqual(["ctx-cancel", "retry-storm", "sql-injection"]);
  });
});

describe("search index: a file written just before a refresh (racy)", () => {
  it("is compared by content while its stat may hide a later write: the same bytes keep the catalogue as it is, a write that kept size and mtime is seen", async () => {
    const root = await testdir({ ...SOURCE_FILES, ...ENTRIES });
    const past = new Date(Date.now() - 3_600_000);
    for (const rel of [...Object.keys(SOURCE_FILES), ...Object.keys(ENTRIES)]) await utimes(path.join(root, rel), past, past);
    await (await openKnowledgeBase({ root, embedder: null })).index();
    const file = path.join(root, "knowledge/retry-storm.md");
    const text = await readFile(file, "utf8");
    // Written now, with an mtime that a second write can be given again exactly.
    const at = new Date();
    await writeFile(file, text.replace("jitter", "JITTER"));
    await utimes(file, at, at);
    const kb = await openKnowledgeBase({ root, embedder: null });
    const index = await SearchIndex.open(kb.layout, null);
    await index.loadLexical();
    expect(await index.refresh()).toMatchObject({ updated: ["retry-storm"] });
    const racy = index.catalogue;
    expect(racy.records.find((r) => r.id === "retry-storm")?.racy).toBe(true);
    // Nothing written since: the catalogue stays the very same object (no full pass over every record).
    expect(await index.refresh()).toMatchObject({ updated: [], added: [], removed: [] });
    expect(index.catalogue).toBe(racy);
    // A write that keeps the size and the mtime: only the content tells, and it is seen.
    await writeFile(file, text.replace("jitter", "JiTTeR"));
    await utimes(file, at, at);
    const before = racy.records.find((r) => r.id === "retry-storm")!.fileHash;
    expect(await index.refresh()).toMatchObject({ updated: ["retry-storm"] });
    expect(index.catalogue.records.find((r) => r.id === "retry-storm")!.fileHash).not.toBe(before);
    // Out of its racy window, the next refresh drops the flag (a fresh clone's files are all racy at first: none of
    // them is read again on every later check).
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, at.getTime() + 2_100 - Date.now())));
    await index.refresh();
    expect(index.catalogue.records.find((r) => r.id === "retry-storm")!.racy).toBeUndefined();
    const settled = index.catalogue;
    await index.refresh();
    expect(index.catalogue).toBe(settled);
  });
});

describe("search index: incremental updates", () => {
  it("embeds only what changed: add, edit, frontmatter-only edit, delete, rename, archive move", async () => {
    const embedder = fakeEmbedder();
    const { root, kb } = await setup(embedder);
    const first = await kb.index();
    expect(first).toMatchObject({ entries: 3, embedded: 3, saved: true, added: ["ctx-cancel", "retry-storm", "sql-injection"] });

    const again = await (await openKnowledgeBase({ root, embedder, config: RANKED })).index();
    expect(again).toMatchObject({ embedded: 0, added: [], updated: [], removed: [], saved: false, unchanged: 3 });

    await writeFile(path.join(root, "knowledge/retry-storm.md"), entryText({ finding: "Retries without exponential backoff overload dependencies." }));
    const edited = await kb.index();
    expect(edited).toMatchObject({ updated: ["retry-storm"], embedded: 1 });

    const file = path.join(root, "knowledge/ctx-cancel.md");
    await writeFile(file, (await readFile(file, "utf8")).replace("2026-02-12", "2026-02-20"));
    const fmOnly = await kb.index();
    expect(fmOnly).toMatchObject({ updated: [], embedded: 0, reused: 0 });

    await rename(path.join(root, "knowledge/sql-injection.md"), path.join(root, "knowledge/sql-concat.md"));
    const renamed = await kb.index();
    expect(renamed).toMatchObject({ added: ["sql-concat"], removed: ["sql-injection"], embedded: 0, reused: 1 });

    await mkdir(path.join(root, "knowledge/archive"), { recursive: true });
    await rename(path.join(root, "knowledge/sql-concat.md"), path.join(root, "knowledge/archive/sql-concat.md"));
    const moved = await kb.index();
    expect(moved).toMatchObject({ moved: ["sql-concat"], embedded: 0 });

    await rm(path.join(root, "knowledge/retry-storm.md"));
    const removed = await kb.index();
    expect(removed).toMatchObject({ removed: ["retry-storm"], entries: 2 });
  });

  it("search excludes archived entries unless asked, explains itself, and is deterministic", async () => {
    const { root, kb } = await setup();
    await mkdir(path.join(root, "knowledge/archive"), { recursive: true });
    await rename(path.join(root, "knowledge/retry-storm.md"), path.join(root, "knowledge/archive/retry-storm.md"));
    const hits = await kb.search("retry backoff jitter thundering herd");
    expect(hits.results.map((r) => r.id)).not.toContain("retry-storm");
    const withArchive = await kb.search("retry backoff jitter thundering herd", { includeArchived: true, withVectors: true });
    expect(withArchive.results[0]).toMatchObject({ id: "retry-storm", state: "archived", path: "knowledge/archive/retry-storm.md" });
    expect(withArchive.results[0]!.explain.lexical?.rank).toBe(1);
    expect(withArchive.results[0]!.explain.vector?.rank).toBe(1);
    expect(withArchive.mode).toBe("hybrid");
    const again = await kb.search("retry backoff jitter thundering herd", { includeArchived: true, withVectors: true });
    expect(again.results).toEqual(withArchive.results);
    expect((await kb.search("kubernetes helm chart values")).results).toEqual([]);
  });
});

describe("search index: one refresh per process", () => {
  it("concurrent searches share one refresh; a write in between makes the next search refresh again", async () => {
    const { root, kb } = await setup(null);
    await kb.index();
    const { index } = await kb.searchIndex();
    let refreshes = 0;
    const refresh = index.refresh.bind(index);
    index.refresh = (options) => (refreshes++, refresh(options));
    kb.invalidate();
    await Promise.all([kb.search("retry backoff"), kb.search("context cancellation"), kb.search("sql injection")]);
    expect(refreshes).toBe(1);
    await writeFile(path.join(root, "knowledge/new-one.md"), entryText({ finding: "Zebra crossings need a second look in the parser." }));
    kb.invalidate();
    expect((await kb.search("zebra crossings parser")).results[0]?.id).toBe("new-one");
    expect(refreshes).toBe(2);
  });
});

describe("search index: a cold index never makes a search wait for every vector", () => {
  it("a search embeds a few and ranks the rest by words, saying so; `index` embeds the rest", async () => {
    const files: Record<string, string> = { ...SOURCE_FILES };
    for (let i = 0; i < 80; i++) files[`knowledge/e${i}.md`] = entryText({ finding: `Finding ${i} about topic ${i % 9} and its retries.` });
    const root = await testdir(files);
    const embedder = fakeEmbedder();
    const kb = await openKnowledgeBase({ root, embedder, config: RANKED });
    const found = await kb.search("topic 3 retries");
    expect(embedder.texts).toBe(64 + 1); // 64 entries, and the query itself
    expect(found.warnings.join("\n")).toMatch(/16 entries have no vector yet; they are ranked by words alone until `cairn index` embeds them/);
    expect(found.results.length).toBeGreaterThan(0);
    const report = await kb.index();
    expect(report.embedded).toBe(16);
  });
});

describe("search index: lexical work is done once, by the first process that searches", () => {
  it("a search pays the lexical work a catalogue-only refresh left, and saves it; a rebuilt segment is saved too", async () => {
    const { root } = await setup(null);
    await (await openKnowledgeBase({ root, embedder: null })).index();
    await writeFile(path.join(root, "knowledge/retry-storm.md"), entryText({ finding: "Retries without exponential backoff overload dependencies." }));
    await (await openKnowledgeBase({ root, embedder: null })).status(); // catalogue only: the lexical work is owed
    const catalogue = () => savedIndex(root);
    expect((await catalogue()).catalogue.lexical.stale).toEqual(["retry-storm"]);
    const found = await (await openKnowledgeBase({ root, embedder: null })).search("exponential backoff");
    expect(found.results[0]?.id).toBe("retry-storm");
    expect((await catalogue()).catalogue.lexical.stale).toEqual([]);

    const { manifest } = await catalogue();
    await writeFile(path.join(root, ".cairn", manifest.files.segment), "damaged");
    const rebuilt = await (await openKnowledgeBase({ root, embedder: null })).search("exponential backoff");
    expect(rebuilt.warnings.join("\n")).toMatch(/lexical segment cannot be read: .*rebuilt from the entry files/);
    const next = await (await openKnowledgeBase({ root, embedder: null })).search("exponential backoff");
    expect(next.warnings).toEqual([]);
    expect(next.results[0]?.id).toBe("retry-storm");
  });
});

describe("search index: robustness", () => {
  it("rebuilds with a warning when the manifest is corrupt or the embedder changed", async () => {
    const { root, kb } = await setup();
    await kb.index();
    await writeFile(path.join(root, ".cairn/manifest.json"), "{ not json");
    const fresh = await (await openKnowledgeBase({ root, embedder: fakeEmbedder(), config: RANKED })).index();
    expect(fresh.warnings.join("\n")).toMatch(/unreadable/);
    expect(fresh.entries).toBe(3);
    const other = await (await openKnowledgeBase({ root, embedder: fakeEmbedder(32, "other@1"), config: RANKED })).index();
    expect(other.warnings.join("\n")).toMatch(/embedder changed/);
    expect(other.embedded).toBe(3);
  });

  it("an interrupted save leaves the previous index usable", async () => {
    const { root, kb } = await setup();
    await kb.index();
    // A crash mid-save leaves a half-written generation directory and a temp manifest behind.
    await mkdir(path.join(root, ".cairn/gen-zzzz-999"), { recursive: true });
    await writeFile(path.join(root, ".cairn/gen-zzzz-999/lexical.json"), "{\"trunc");
    await writeFile(path.join(root, ".cairn/manifest.json.tmp-crash"), "{");
    const reopened = await openKnowledgeBase({ root, embedder: fakeEmbedder(), config: RANKED });
    const report = await reopened.index();
    expect(report).toMatchObject({ warnings: [], embedded: 0, unchanged: 3 });
    expect((await reopened.search("context cancellation")).results[0]?.id).toBe("ctx-cancel");
  });

  it("falls back to lexical-only with one warning when the model cannot load", async () => {
    const broken: Embedder = { id: "broken@1", dims: 8, embed: async () => { throw new Error("model files missing"); } };
    const { kb } = await setup(broken);
    const report = await kb.index();
    expect(report.warnings.join("\n")).toMatch(/lexical-only/);
    const hits = await kb.search("SQL injection placeholders");
    expect(hits.results[0]?.id).toBe("sql-injection");
    expect(hits.mode).toBe("lexical");
  });

  it("a file that stops parsing keeps its last good version", async () => {
    const { root, kb } = await setup();
    await kb.index();
    await writeFile(path.join(root, "knowledge/sql-injection.md"), "---\nlastConfirmed: [\n---\nbroken");
    const report = await kb.index();
    expect(report.errors.map((d) => d.rule)).toEqual(["yaml-invalid"]);
    expect(report.removed).toEqual([]);
    expect((await kb.search("SQL injection placeholders")).results[0]?.id).toBe("sql-injection");
  });

  it("one writer at a time: a second writer waits or is told who holds the lock", async () => {
    const { root, kb } = await setup();
    await kb.index();
    const { acquireIndexLock } = await import("../../src/indexing/lock.js");
    const release = await acquireIndexLock(path.join(root, ".cairn"));
    await expect(acquireIndexLock(path.join(root, ".cairn"))).rejects.toThrow(/another cairn process/);
    await release();
    expect((await readdir(path.join(root, ".cairn"))).filter((n) => n.startsWith("gen-"))).toHaveLength(1);
  });
});

describe("check --duplicates", () => {
  it("reports near-duplicate entries once, on the later id, using the index", async () => {
    const root = await testdir({
      ...SOURCE_FILES,
      "knowledge/a-first.md": entryText({ finding: "Retry loops without jitter or backoff cause thundering herds against a recovering service." }),
      "knowledge/b-copy.md": entryText({ finding: "Retry loops without jitter or backoff cause thundering herds against a recovering service!" }),
      // Anchored on the whole file, not on the others' lines and symbol: shared anchors are duplicates too (test/lifecycle/duplicates.test.ts).
      "knowledge/c-other.md": entryText({ finding: "Query builders that concatenate user input into SQL strings allow injection.", evidence: "src/auth.ts — the query helpers" }),
    });
    const kb = await openKnowledgeBase({ root, embedder: fakeEmbedder() });
    const plain = await kb.check();
    expect(plain.diagnostics).toEqual([]);
    const report = await kb.check({ duplicates: true });
    expect(report.diagnostics.map((d) => `${d.file}:${d.rule}:${d.severity}`)).toEqual(["knowledge/b-copy.md:near-duplicate:warning"]);
    expect(report.diagnostics[0]!.message).toMatch(/a-first/);
    const lexical = await (await openKnowledgeBase({ root, embedder: null })).check({ duplicates: true });
    expect(lexical.diagnostics.map((d) => d.rule)).toEqual(["near-duplicate"]);
  });

  it("embeds only the lexically pre-selected entries, once: a second run takes every vector from the cache", async () => {
    const files: Record<string, string> = { ...SOURCE_FILES };
    for (let i = 0; i < 12; i++) files[`knowledge/e${i}.md`] = entryText({ finding: `Topic ${i} finding about ${["caching", "retries", "locks"][i % 3]} in module ${i}.`, evidence: `src/auth.ts — note ${i}` });
    files["knowledge/odd.md"] = entryText({ finding: "Zebra quantum lattice.", evidence: "src/auth.ts — odd" });
    const root = await testdir(files);
    const embedder = fakeEmbedder();
    await (await openKnowledgeBase({ root, embedder })).check({ duplicates: true });
    // The entry that shares no word with any other is never a candidate, nor compared.
    expect(embedder.texts).toBeGreaterThan(0);
    expect(embedder.texts).toBeLessThanOrEqual(12);
    const again = fakeEmbedder();
    await (await openKnowledgeBase({ root, embedder: again })).check({ duplicates: true });
    expect(again.texts).toBe(0);
  });
});
