import { describe, expect, it } from "vitest";
import { openKnowledgeBase } from "../../src/index.js";
import type { Embedder } from "../../src/indexing/embedder.js";
import { DEFAULT_FUSION } from "../../src/retrieval/fusion.js";
import { hybridSearch } from "../../src/retrieval/search.js";
import { fakeEmbedder } from "../helpers/fake-embedder.js";
import { entryText, testdir } from "../helpers/fixture.js";

/** Entries modelled on cairn's own knowledge base: many share common words (files, entries, src, store). */
const ENTRIES: Record<string, string> = {
  "knowledge/archive-moves-never-overwrite.md": entryText({
    finding: "Moving an entry to the archive must never overwrite an existing file: the move is an atomic rename that refuses an existing target.",
    evidence: "src/store/mutate.ts:10-20, moveEntry() — rename without overwrite.",
    verify: "Archive two entries with the same file name and check both files survive.",
  }),
  "knowledge/surgical-edits.md": entryText({
    finding: "Frontmatter edits rewrite only the changed lines and replace the file atomically; the YAML is never reserialised.",
    evidence: "src/entry/edit.ts:1-5, applyEdit() — line-level edit.",
    verify: "Edit one key and diff the file.",
  }),
  "knowledge/init-is-idempotent.md": entryText({
    finding: "Running init twice leaves existing files and entries untouched.",
    evidence: "src/cli/init.ts:1-5, init() — skips existing files.",
    verify: "Run init twice and compare the tree.",
  }),
  "knowledge/entry-size-checked.md": entryText({
    finding: "Entry files are size-checked before reading, so a huge file in the store cannot exhaust memory.",
    evidence: "src/store/files.ts:1-5, readEntryFile() — stat before read.",
    verify: "Create a 50 MB entry and run check.",
  }),
  "knowledge/symlinks-refused.md": entryText({
    finding: "Symlinks that leave the knowledge directory are refused when entries are listed.",
    evidence: "src/store/files.ts:6-9, listEntryFiles() — realpath check.",
    verify: "Symlink an entry to /etc and list entries.",
  }),
  "knowledge/ledger-single-writes.md": entryText({
    finding: "Ledger events are appended with one write per line so concurrent writers never interleave.",
    evidence: "src/ledger/append.ts:1-9, append() — O_APPEND single write.",
    verify: "Append from two processes and parse every line.",
  }),
};

async function openIndex(files: Record<string, string> = ENTRIES, embedder: Embedder | null = fakeEmbedder()) {
  const root = await testdir(files);
  // The index holds vectors only when the embedder ranks (a weight above 0); each test picks the weight it searches with.
  const kb = await openKnowledgeBase({ root, embedder, config: { embedder: { provider: "use-lite", weight: 0.2 } } });
  await kb.index();
  return (await kb.searchIndex()).index;
}

const ARCHIVE_QUERY = "files atomic\nThis PR changes how entries are moved to the archive\nsrc store mutate ts";

describe("hybridSearch: the relevance floor", () => {
  it("does not fill the slots with entries that share only common words with the query", async () => {
    const index = await openIndex();
    const floored = await hybridSearch(index, ARCHIVE_QUERY, { limit: 5 });
    // The archive entry, and the one entry that shares distinctive words with the query ("atomic", "changes").
    expect(floored.results.map((r) => r.id)).toEqual(["archive-moves-never-overwrite", "surgical-edits"]);
    expect(floored.results.every((r) => r.explain.relevant)).toBe(true);

    // Without the floor the same search fills the slots, and the extra entries say why they were dropped.
    const all = await hybridSearch(index, ARCHIVE_QUERY, { limit: 5, floor: false });
    expect(all.results).toHaveLength(5);
    const dropped = all.results.filter((r) => !floored.results.some((f) => f.id === r.id));
    expect(dropped.map((r) => r.id)).toEqual(["entry-size-checked", "symlinks-refused", "init-is-idempotent"]);
    for (const r of dropped) {
      expect(r.explain.relevant).toBe(false);
      const lexical = r.explain.lexical!;
      const weak = lexical.evidence! < DEFAULT_FUSION.evidenceFloor; // a long query: the share alone does not count
      expect(weak || lexical.relative! < DEFAULT_FUSION.relativeFloor).toBe(true);
      expect(r.explain.cut?.length).toBeGreaterThan(0);
    }
  });

  it("explain lists the best candidates below the floor, each with the reasons it was cut", async () => {
    const index = await openIndex();
    const plain = await hybridSearch(index, ARCHIVE_QUERY, { limit: 5 });
    expect(plain.belowFloor).toBeUndefined();
    const explained = await hybridSearch(index, ARCHIVE_QUERY, { limit: 5, explain: true });
    expect(explained.results).toEqual(plain.results);
    expect(explained.belowFloor?.map((r) => r.id)).toEqual(["entry-size-checked", "symlinks-refused", "init-is-idempotent", "ledger-single-writes"]);
    const first = explained.belowFloor![0]!;
    expect(first.explain.relevant).toBe(false);
    expect(first.explain.cut).toEqual([expect.stringMatching(/matched terms too weak: evidence 0\.86 < 1\.25 \(12% of a long query's weight does not count on its own\)/), expect.stringMatching(/lexical score 22% of the best < 35%/)]);
  });

  it("returns nothing for a query about something the knowledge base does not hold, even when common words match", async () => {
    const index = await openIndex();
    const query = "Bumps the helm chart version and renames the ingress files";
    expect((await hybridSearch(index, query, { floor: false })).results.length).toBeGreaterThan(0);
    expect((await hybridSearch(index, query)).results).toEqual([]);
  });

  it("lower floors let more through: the floor is the parameter, not a constant", async () => {
    const index = await openIndex();
    const lenient = await hybridSearch(index, ARCHIVE_QUERY, { limit: 5, fusion: { ...DEFAULT_FUSION, evidenceFloor: 0, lexicalFloor: 0, relativeFloor: 0 } });
    const strict = await hybridSearch(index, ARCHIVE_QUERY, { limit: 5 });
    expect(lenient.results.length).toBeGreaterThan(strict.results.length);
  });
});

describe("hybridSearch: the query embedding", () => {
  it("is skipped when the vector list has no ranking weight, unless vectors are asked for", async () => {
    const embedder = fakeEmbedder();
    const index = await openIndex(ENTRIES, embedder);
    const before = embedder.calls;
    const plain = await hybridSearch(index, ARCHIVE_QUERY, { limit: 3 });
    expect(embedder.calls).toBe(before);
    expect(plain.mode).toBe("lexical");
    const withVectors = await hybridSearch(index, ARCHIVE_QUERY, { limit: 3, withVectors: true });
    expect(embedder.calls).toBe(before + 1);
    expect(withVectors.results.map((r) => r.id)).toEqual(plain.results.map((r) => r.id)); // weight 0: same ranking
  });
});

describe("hybridSearch: explain", () => {
  it("reports lexical rank, score, matched share and relative score, vector rank, similarity and weight", async () => {
    const index = await openIndex();
    const response = await hybridSearch(index, ARCHIVE_QUERY, { limit: 3, withVectors: true });
    expect(response.mode).toBe("hybrid");
    const top = response.results[0]!;
    expect(top.explain.lexical).toMatchObject({ rank: 1, relative: 1 });
    expect(top.explain.lexical!.score).toBeGreaterThan(0);
    const lexical = top.explain.lexical!;
    expect(lexical.matched >= DEFAULT_FUSION.lexicalFloor || lexical.evidence! >= DEFAULT_FUSION.evidenceFloor).toBe(true);
    expect(top.explain.vector).toMatchObject({ weight: DEFAULT_FUSION.vectorWeight });
    expect(top.explain.vector!.rank).toBeGreaterThanOrEqual(1);
    expect(top.explain.vector!.similarity).toBeGreaterThan(0);
    expect(top.explain.changedFiles).toBeUndefined();
    expect(top.score).toBeGreaterThan(0);
  });

  it("with a vector weight, the prose gate gives a code query's vector list none but still reports its similarity", async () => {
    const index = await openIndex();
    const fusion = { ...DEFAULT_FUSION, vectorWeight: 0.15 };
    const prose = await hybridSearch(index, ARCHIVE_QUERY, { fusion, limit: 3 });
    expect(prose.results[0]?.explain.vector?.weight).toBe(0.15);
    const code = await hybridSearch(index, "fs.renameSync(from, to);\nif (exists(to)) { throw new Error(); }", { fusion, floor: false, limit: 3, withVectors: true });
    expect(code.results.length).toBeGreaterThan(0);
    expect(code.results.some((r) => r.explain.vector !== undefined)).toBe(true);
    for (const r of code.results) if (r.explain.vector) expect(r.explain.vector.weight).toBe(0);
  });

  it("a vector list with weight adds entries the lexical list misses; with weight 0 it only explains", async () => {
    const index = await openIndex();
    const query = "Ledger events appended with one write per line";
    const weighted = await hybridSearch(index, query, { fusion: { ...DEFAULT_FUSION, vectorWeight: 0.5 }, floor: false });
    const plain = await hybridSearch(index, query, { floor: false });
    expect(weighted.results.length).toBeGreaterThan(plain.results.length);
    expect(plain.results.every((r) => r.explain.lexical !== undefined)).toBe(true);
    expect(weighted.results.some((r) => r.explain.lexical === undefined && r.explain.vector !== undefined)).toBe(true);
  });

  it("without an embedder runs lexical-only and says so", async () => {
    const index = await openIndex(ENTRIES, null);
    const response = await hybridSearch(index, ARCHIVE_QUERY);
    expect(response.mode).toBe("lexical");
    expect(response.results[0]?.id).toBe("archive-moves-never-overwrite");
    expect(response.results.every((r) => r.explain.vector === undefined)).toBe(true);
  });
});

describe("hybridSearch: changed files and ties", () => {
  it("ranks an entry anchored on a changed file first, ahead of a better lexical match", async () => {
    const index = await openIndex();
    // As inject builds it: keywords and summary, then the changed paths as words.
    const query = "files moved atomically to the archive\nsrc ledger append ts";
    const plain = await hybridSearch(index, query, { floor: false });
    expect(plain.results[0]?.id).toBe("archive-moves-never-overwrite");
    const boosted = await hybridSearch(index, query, { changedFiles: ["src/ledger/append.ts"] });
    expect(boosted.results[0]?.id).toBe("ledger-single-writes");
    expect(boosted.results[0]?.explain.changedFiles).toEqual({ rank: 1, touch: "file", strength: 0.6 });
    expect(boosted.results[0]?.explain.relevant).toBe(true);
    expect(boosted.results[1]?.id).toBe("archive-moves-never-overwrite");
  });

  it("entries touching the changed files equally get the same boost", async () => {
    const index = await openIndex();
    const response = await hybridSearch(index, "entries", { floor: false, changedFiles: ["src/store/files.ts"] });
    const touched = response.results.filter((r) => r.explain.changedFiles?.touch === "file");
    expect(touched.map((r) => r.id).sort()).toEqual(["entry-size-checked", "symlinks-refused"]);
    expect(touched.every((r) => r.explain.changedFiles?.rank === 1)).toBe(true);
    const sameDir = response.results.find((r) => r.id === "archive-moves-never-overwrite");
    expect(sameDir?.explain.changedFiles).toEqual({ rank: 3, touch: "directory", strength: 0.05 });
  });

  it("breaks ties by id: identical entries come back in id order, every time", async () => {
    const twin = entryText({ finding: "Webhook deliveries are retried without idempotency keys and double-charge customers." });
    const index = await openIndex({ "knowledge/zz-webhook.md": twin, "knowledge/aa-webhook.md": twin, "knowledge/mm-webhook.md": twin });
    const query = "webhook retries double-charge customers";
    const first = await hybridSearch(index, query);
    expect(first.results.map((r) => r.id)).toEqual(["aa-webhook", "mm-webhook", "zz-webhook"]);
    expect(new Set(first.results.map((r) => r.score)).size).toBe(1);
    expect((await hybridSearch(index, query)).results).toEqual(first.results);
  });
});
