import { describe, expect, it } from "vitest";
import { anchorTouch, anchorSignals } from "../../src/retrieval/changed-files.js";
import { parseDiffEvidence } from "../../src/retrieval/diff.js";
import { injectQueries } from "../../src/retrieval/inject.js";
import { cairn } from "../helpers/cli.js";
import { project } from "../lifecycle/setup.js";
import { AUTOFIX_DIFF, AUTOFIX_SUMMARY, ESLINT_LIKE } from "./eslint-fixture.js";

const GLOB_ENTRIES = ["rule-tests-cover-invalid-code", "rules-declare-options-schema", "rules-link-their-docs", "rules-use-message-ids"];

describe("parseDiffEvidence: a unified diff as evidence", () => {
  it("gives changed paths, the base lines each hunk touches, git's function headings and the code", () => {
    const diff = parseDiffEvidence(AUTOFIX_DIFF);
    expect(diff.paths).toEqual(["lib/rules/no-useless-concat.js"]);
    const [file] = diff.files;
    // Base lines: the insertion after line 8, and line 15 replaced (insertions after it touch it too).
    expect(file!.ranges).toEqual([
      { start: 8, end: 8 },
      { start: 15, end: 15 },
    ]);
    expect(file!.headings).toEqual(["module.exports = {", "module.exports = {"]);
    expect(diff.queryText).toContain('fixable: "code",');
    expect(diff.queryText).toContain("fix(fixer) {");
    expect(diff.queryText).not.toMatch(/^[+-]/m);
  });

  it("follows renames, knows added and deleted files, and ignores text that is not a diff", () => {
    const renamed = parseDiffEvidence("diff --git a/src/old.ts b/src/new.ts\nsimilarity index 90%\nrename from src/old.ts\nrename to src/new.ts\n");
    expect(renamed.files[0]).toMatchObject({ path: "src/new.ts", oldPath: "src/old.ts", ranges: [] });
    expect(renamed.paths).toEqual(["src/new.ts", "src/old.ts"]);
    const added = parseDiffEvidence("--- /dev/null\n+++ b/src/added.ts\n@@ -0,0 +1,2 @@\n+export const a = 1;\n+export const b = 2;\n");
    expect(added.files[0]).toMatchObject({ path: "src/added.ts", ranges: [] });
    const deleted = parseDiffEvidence("--- a/src/gone.ts\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-export const a = 1;\n-export const b = 2;\n");
    expect(deleted.files[0]).toMatchObject({ path: "src/gone.ts", ranges: [{ start: 1, end: 2 }] });
    expect(parseDiffEvidence("just a PR description, no diff").files).toEqual([]);
  });

  it("bounds the code it adds to the query, taking every file's first lines before any file's later ones", () => {
    const big = (name: string) => `--- a/${name}\n+++ b/${name}\n@@ -1,400 +0,0 @@\n${Array.from({ length: 400 }, (_, i) => `-old_${name.replace(/\W/g, "")}_${i}();`).join("\n")}\n`;
    const diff = parseDiffEvidence(big("a.ts") + big("b.ts"), { maxQueryChars: 2_000 });
    expect(diff.queryText.length).toBeLessThanOrEqual(2_100);
    expect(diff.queryText).toContain("old_ats_0();");
    expect(diff.queryText).toContain("old_bts_0();");
  });
});

describe("changed code weighed by anchor precision", () => {
  const diff = parseDiffEvidence(AUTOFIX_DIFF);
  const change = { paths: diff.paths, files: diff.files };

  it("grades each anchor: changed lines, a symbol the hunks name, the file, elsewhere in it, a glob, a directory", () => {
    expect(anchorTouch([{ path: "lib/rules/no-useless-concat.js", startLine: 4, endLine: 9 }], change)).toBe("hunk");
    expect(anchorTouch([{ path: "lib/rules/no-useless-concat.js", startLine: 30, endLine: 40, symbol: "create" }], change)).toBe("symbol");
    expect(anchorTouch([{ path: "lib/rules/no-useless-concat.js" }], change)).toBe("file");
    expect(anchorTouch([{ path: "lib/rules/no-useless-concat.js", startLine: 30, endLine: 40 }], change)).toBe("elsewhere");
    expect(anchorTouch([{ path: "lib/rules/*.js", glob: true }], change)).toBe("glob");
    expect(anchorTouch([{ path: "lib/rules/no-extra-semi.js", startLine: 1, endLine: 3 }], change)).toBe("directory");
    expect(anchorTouch([{ path: "lib/linter/linter.js", startLine: 8, endLine: 10 }], change)).toBeUndefined();
    // Changed paths without hunks (--changed-files): the file is all that is known.
    expect(anchorTouch([{ path: "lib/rules/no-useless-concat.js", startLine: 30, endLine: 40 }], { paths: diff.paths })).toBe("file");
  });

  it("only precise touches make an entry relevant on their own; a glob adds a little and needs lexical relevance", () => {
    const signals = anchorSignals(
      [
        { id: "exact", anchors: [{ path: "lib/rules/no-useless-concat.js", startLine: 8, endLine: 9 }] },
        { id: "glob", anchors: [{ path: "lib/rules/*.js", glob: true }] },
      ],
      change,
    );
    expect(signals.map((s) => [s.id, s.touch, s.relevant])).toEqual([
      ["exact", "hunk", true],
      ["glob", "glob", false],
    ]);
    expect(signals[0]!.score).toBeGreaterThan(5 * signals[1]!.score);
  });

  it("ranks only the entries a search admits: one filtered out (archived, another agent's) takes no rank", () => {
    const candidates = [
      { id: "archived-exact", anchors: [{ path: "lib/rules/no-useless-concat.js", startLine: 8, endLine: 9 }] },
      { id: "same-file", anchors: [{ path: "lib/rules/no-useless-concat.js" }] },
      { id: "untouched", anchors: [{ path: "lib/linter/linter.js" }] },
    ];
    const asked: string[] = [];
    const signals = anchorSignals(candidates, change, (id) => (asked.push(id), id !== "archived-exact"));
    expect(signals.map((s) => [s.id, s.rank, s.touch])).toEqual([["same-file", 1, "file"]]);
    // The filter is asked only about touched entries (a search at 10k entries touches a few).
    expect(asked).toEqual(["archived-exact", "same-file"]);
    expect(anchorSignals(candidates, change).map((s) => [s.id, s.rank])).toEqual([["archived-exact", 1], ["same-file", 2]]);
  });

  it("inject's query holds the keywords, the summary, the changed paths as words and the diff's code", () => {
    const q = injectQueries({ keywords: ["correctness"], summary: AUTOFIX_SUMMARY }, diff);
    expect(q.keywords).toBe("correctness");
    expect(q.full).toContain(AUTOFIX_SUMMARY);
    expect(q.full).toContain("lib rules no useless concat js");
    expect(q.full).toContain("fixer.replaceText");
  });
});

describe("the index keeps each anchor's path, lines and symbol", () => {
  it("so a search given the diff's hunks grades the touch of every entry", async () => {
    const { kb } = await project(ESLINT_LIKE, { embedder: null });
    const diff = parseDiffEvidence(AUTOFIX_DIFF.replace(/lib\/rules\/no-useless-concat\.js/g, "lib/linter/linter.js"));
    const response = await kb.search("meta fixable report", { floor: false, changedFiles: diff.paths, changedHunks: diff.files });
    const touch = Object.fromEntries(response.results.map((r) => [r.id, r.explain.changedFiles?.touch]));
    // The hunk at base line 8 overlaps linter.js:8-10; the other linter.js anchor (line 3) is elsewhere in the file.
    expect(touch["fixable-rules-declare-meta-fixable"]).toBe("hunk");
    expect(touch["parser-options-ecma-version"]).toBe("elsewhere");
  });
});

describe("issue 10 reproduction: 'adds an autofix to no-useless-concat'", () => {
  const input = { run: "pr-7", agent: "correctness", keywords: ["correctness", "bugs"], summary: AUTOFIX_SUMMARY, dryRun: true };

  it("a glob anchor on the changed rule no longer puts its entry into the agent's context past the floor", async () => {
    const { kb } = await project(ESLINT_LIKE, { embedder: null });
    const result = await kb.inject({ ...input, changedFiles: ["lib/rules/no-useless-concat.js"], explain: true });
    const injected = result.entries.map((e) => e.id);
    for (const id of GLOB_ENTRIES) expect(injected).not.toContain(id);
    // --explain says why the candidates were left out: the glob-anchored ones touch the change only through their glob.
    const below = result.belowFloor ?? [];
    const globReasons = below.filter((b) => GLOB_ENTRIES.includes(b.id)).flatMap((b) => b.reasons);
    expect(globReasons.length).toBeGreaterThan(0);
    expect(globReasons.some((r) => /level "glob"/.test(r))).toBe(true);
  });

  it("with the diff, the entry about meta.fixable is injected, and --explain lists what was left out and why", async () => {
    const { kb } = await project(ESLINT_LIKE, { embedder: null });
    const result = await kb.inject({ ...input, diff: AUTOFIX_DIFF, explain: true });
    const injected = result.entries.map((e) => e.id);
    expect(injected).toContain("fixable-rules-declare-meta-fixable");
    // A glob-anchored entry comes in only on what the review says, never on its glob: each one injected clears the
    // lexical floor on its own (the diff's code and context lines speak of `messageId`, `context.report`, `schema: []`,
    // `docs: {…}`). Which of them clear it is a matter of a few points in this six-entry base: with the entries' anchored
    // code indexed, "rule", "meta" and "message" are less rare, and the best score drops.
    const query = injectQueries({ keywords: input.keywords, summary: input.summary }, parseDiffEvidence(AUTOFIX_DIFF)).full;
    const explained = await kb.search(query, { floor: false });
    const globInjected = injected.filter((id) => GLOB_ENTRIES.includes(id));
    for (const id of globInjected) {
      const lexical = explained.results.find((r) => r.id === id)?.explain.lexical;
      expect({ id, evidence: (lexical?.evidence ?? 0) >= 1.25, relative: (lexical?.relative ?? 0) >= 0.35 }).toEqual({ id, evidence: true, relative: true });
    }
    expect(result.belowFloor?.length).toBeGreaterThan(0);
    for (const b of result.belowFloor ?? []) expect(b.reasons.length).toBeGreaterThan(0);
  });

  it("the CLI reads the diff from stdin and explains on stderr, leaving the Knowledge Context alone on stdout", async () => {
    const { root } = await project(ESLINT_LIKE, { embedder: null });
    await cairn(["index", "--root", root]);
    const run = await cairn(
      ["inject", "--root", root, "--run", "pr-7", "--agent", "correctness", "--keywords", "correctness,bugs", "--summary", AUTOFIX_SUMMARY, "--diff", "-", "--explain", "--dry-run"],
      { input: AUTOFIX_DIFF },
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("fixable-rules-declare-meta-fixable");
    expect(run.stdout).not.toContain("not injected");
    expect(run.stderr).toMatch(/not injected:\n- \S+ \(knowledge\/\S+\.md\): /);
    const search = await cairn(["search", "--root", root, "autofix no-useless-concat", "--explain", "--changed-files", "lib/rules/no-useless-concat.js"]);
    expect(search.code).toBe(0);
    expect(search.stdout).toMatch(/below the relevance floor \(not returned\):\n- /);
    const json = JSON.parse((await cairn(["search", "--root", root, "autofix no-useless-concat", "--explain", "--json"])).stdout) as { belowFloor: Array<{ explain: { cut: string[] } }> };
    expect(json.belowFloor.every((b) => b.explain.cut.length > 0)).toBe(true);
  });
});
