import { describe, expect, it } from "vitest";
import { refreshProgress } from "../../src/cli/progress.js";
import { openKnowledgeBase } from "../../src/index.js";
import type { IndexProgress } from "../../src/types/indexing.js";
import { cairn } from "../helpers/cli.js";
import { entryText, SOURCE_FILES, testdir } from "../helpers/fixture.js";

/** A knowledge base of `n` distinct entries, never indexed (a fresh clone). */
async function freshClone(n: number): Promise<string> {
  const files: Record<string, string> = { ...SOURCE_FILES };
  for (let i = 0; i < n; i++) files[`knowledge/entry-${i}.md`] = entryText({ finding: `Finding number ${i} about topic ${i % 17} and cache ${i % 5}.` });
  return testdir(files);
}

describe("building the index says what it is doing", () => {
  it("the library reports indexing progress from 0 to every file parsed, whichever operation started the refresh", async () => {
    const root = await freshClone(600);
    const calls: Array<[number, number, string]> = [];
    const onProgress: IndexProgress = (done, total, phase) => void calls.push([done, total, phase]);
    const kb = await openKnowledgeBase({ root, embedder: null, onProgress });
    expect((await kb.search("cache")).results.length).toBeGreaterThan(0);
    expect(calls[0]).toEqual([0, 600, "indexing"]);
    expect(calls.at(-1)).toEqual([600, 600, "indexing"]);
    expect(calls.every(([done], i) => i === 0 || done >= calls[i - 1]![0])).toBe(true);
    // Nothing left to parse: no progress at all.
    calls.length = 0;
    await kb.index();
    expect(calls).toEqual([]);
    // `index --rebuild` parses everything again, with the operation's own callback.
    const own: Array<[number, number, string]> = [];
    await kb.index({ rebuild: true, onProgress: (d, t, p) => void own.push([d, t, p]) });
    expect(own.at(-1)).toEqual([600, 600, "indexing"]);
    expect(calls).toEqual([]);
  });

  it("off a terminal, one line per long phase; short refreshes say nothing", () => {
    const lines: string[] = [];
    const report = refreshProgress({ out: () => {}, err: (text) => void lines.push(text), tty: false });
    report(0, 3, "indexing");
    report(3, 3, "indexing");
    expect(lines).toEqual([]);
    for (let done = 0; done <= 1_200; done += 512) report(Math.min(done, 1_200), 1_200, "indexing");
    report(1_200, 1_200, "indexing");
    expect(lines).toEqual([expect.stringMatching(/^cairn: indexing 1,200 entry files \(/)]);
  });

  it("cairn search in a fresh clone announces the index it builds on stderr, once; the next search is silent", async () => {
    const root = await freshClone(520);
    const first = await cairn(["--root", root, "search", "cache", "--json"]);
    expect(first.code).toBe(0);
    expect(first.stderr.split("\n").filter((l) => l.startsWith("cairn: indexing"))).toEqual([expect.stringContaining("indexing 520 entry files")]);
    expect(JSON.parse(first.stdout).results.length).toBeGreaterThan(0);
    const second = await cairn(["--root", root, "search", "cache", "--json"]);
    expect(second.stderr).not.toContain("cairn: indexing");
  });
});
