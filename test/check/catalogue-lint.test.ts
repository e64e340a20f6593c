import { cp, readFile, stat, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { openKnowledgeBase } from "../../src/index.js";
import { lintCatalogue } from "../../src/check/catalogue-lint.js";
import { runCheck } from "../../src/check/run.js";
import { entryText, SOURCE_FILES, testdir } from "../helpers/fixture.js";
import { forgeLintShards, lintFiles } from "../helpers/lint-files.js";

const TOKEN = `ghp_${"A1b2C3d4E5f6G7h8I9j0".repeat(2).slice(0, 36)}`;

const FILES = {
  ...SOURCE_FILES,
  "src/db.ts": "export function query() {\n  return 1;\n}\n\nexport function release() {\n  return 2;\n}\n",
  "knowledge/ctx.md": entryText(),
  "knowledge/db.md": entryText({ finding: "Connections are not released on error paths; release them in finally.", evidence: "src/db.ts:5-7, release() — not called on errors." }),
  "knowledge/leak.md": entryText({ finding: `Retry with the deploy token ${TOKEN} when the registry refuses a push.` }),
  "knowledge/moved.md": entryText({ finding: "Queries run outside a transaction read torn rows.", evidence: "src/db.ts:1-3, query() — no transaction." }),
};

async function lint(root: string) {
  const kb = await openKnowledgeBase({ root, embedder: null });
  const view = await kb.knowledge();
  const { events } = await kb.ledger.read();
  return lintCatalogue({ layout: kb.layout, config: kb.config, view, events, today: kb.today() });
}

describe("status from the catalogue and the lint cache", () => {
  it("gives check's diagnostics, and on the next run computes nothing", async () => {
    const root = await testdir(FILES);
    const kb = await openKnowledgeBase({ root, embedder: null });
    // The full pass (every file parsed, every rule run), not kb.check(), which now shares these caches.
    const check = await runCheck(kb.layout, kb.config, { today: kb.today() });
    const first = await lint(root);
    expect(first.diagnostics).toEqual(check.diagnostics);
    expect(first.diagnostics.map((d) => `${d.file}:${d.rule}`)).toContain("knowledge/leak.md:secret-github-token");
    expect(first.computed).toEqual({ content: 4, anchors: 4 });
    const second = await lint(root);
    expect(second.diagnostics).toEqual(first.diagnostics);
    expect(second.computed).toEqual({ content: 0, anchors: 0 });
  });

  it("resolves again only the anchors whose files changed, and sanitizes again only edited entries", async () => {
    const root = await testdir(FILES);
    await lint(root);
    // 40 lines above query(): the entry anchored on it drifts; the one on release() moves too; ctx.md is untouched.
    await writeFile(path.join(root, "src/db.ts"), `${"// pad\n".repeat(40)}${FILES["src/db.ts"]}`);
    await writeFile(path.join(root, "knowledge/ctx.md"), entryText({ finding: "Middleware swallows cancellation: check ctx.Err() after upstream calls." }));
    const after = await lint(root);
    expect(after.computed).toEqual({ content: 1, anchors: 3 });
    expect(after.diagnostics.filter((d) => d.rule === "anchor-moved").map((d) => d.file).sort()).toEqual(["knowledge/db.md", "knowledge/moved.md"]);
    const kb = await openKnowledgeBase({ root, embedder: null });
    expect(after.diagnostics).toEqual((await runCheck(kb.layout, kb.config, { today: kb.today() })).diagnostics);
    expect((await kb.check()).diagnostics).toEqual(after.diagnostics);
  });

  it("anchors resolved at the same time each depend on their own files only", async () => {
    const many: Record<string, string> = { ...SOURCE_FILES };
    for (let k = 0; k < 40; k++) {
      many[`src/mod${k}.ts`] = `export function step${k}() {\n  return ${k};\n}\n`;
      many[`knowledge/step-${k}.md`] = entryText({ finding: `Step ${k} returns a constant where the caller expects a fresh value.`, evidence: `src/mod${k}.ts:1-3, step${k}() — constant.` });
    }
    const root = await testdir(many);
    expect((await lint(root)).computed.anchors).toBe(40);
    await writeFile(path.join(root, "src/mod17.ts"), `${"// pad\n".repeat(10)}${many["src/mod17.ts"]}`);
    const after = await lint(root);
    expect(after.computed.anchors).toBe(1);
    expect(after.diagnostics.filter((d) => d.rule === "anchor-moved").map((d) => d.file)).toEqual(["knowledge/step-17.md"]);
  });

  it("check reads every file: an edit that keeps the size and mtime is still seen", async () => {
    const root = await testdir(FILES);
    const file = path.join(root, "knowledge/ctx.md");
    const hourAgo = new Date(Date.now() - 3_600_000);
    await utimes(file, hourAgo, hourAgo); // an old file: its stat is trusted (not "racy")
    const kb = await openKnowledgeBase({ root, embedder: null });
    expect((await kb.check()).errors).toBe(1); // the token in leak.md
    const before = await stat(file);
    const text = await readFile(file, "utf8");
    // Same length: "2026-02-12" → "2999-02-12", a future date; then the old mtime back.
    await writeFile(file, text.replace("lastConfirmed: 2026-02-12", "lastConfirmed: 2999-02-12"));
    await utimes(file, before.atime, before.mtime);
    expect((await stat(file)).size).toBe(before.size);
    const report = await (await openKnowledgeBase({ root, embedder: null })).check();
    expect(report.diagnostics.map((d) => `${d.file}:${d.rule}`)).toContain("knowledge/ctx.md:date-in-future");
  });

  it("a date that does not exist is frontmatter-invalid only, never also reported as in the future (check, status)", async () => {
    const root = await testdir({ ...FILES, "knowledge/ctx.md": FILES["knowledge/ctx.md"]!.replace("lastConfirmed: 2026-02-12", "lastConfirmed: 2026-13-45") });
    const kb = await openKnowledgeBase({ root, embedder: null });
    const rulesOf = (list: Array<{ file: string; rule: string }>) => list.filter((d) => d.file === "knowledge/ctx.md").map((d) => d.rule);
    expect(rulesOf((await kb.check()).diagnostics)).toEqual(["frontmatter-invalid"]);
    const row = (await kb.status({ all: true })).entries.find((e) => e.id === "ctx");
    expect(row?.warnings.join("\n") ?? "").not.toMatch(/date-in-future/);
  });

  it("a .cairn/ copied or committed from elsewhere is not believed: a forged clean result for a secret is ignored", async () => {
    const root = await testdir(FILES);
    await lint(root);
    // Forge the cache: the entry holding a token "has no problems".
    expect(Object.keys((await lintFiles(root)).content).length).toBeGreaterThan(0);
    await forgeLintShards(root, (shard) => {
      shard.clean.push(...Object.keys(shard.content));
      shard.content = {};
    });
    expect((await lintFiles(root)).content).toEqual({});
    // The same project arriving elsewhere (a clone of a commit that holds .cairn/, a copied directory).
    const other = await testdir();
    await cp(root, other, { recursive: true });
    const kb = await openKnowledgeBase({ root: other, embedder: null });
    const status = await kb.status();
    expect(status.entries.find((e) => e.id === "leak")?.warnings.join("\n")).toMatch(/withheld from inject: secret-github-token/);
    const injected = await kb.inject({ run: "r1", agent: "a", keywords: ["registry", "deploy", "token", "push"], dryRun: true });
    expect(injected.entries.map((e) => e.id)).not.toContain("leak");
    expect(injected.warnings.join("\n")).toMatch(/withheld leak: .*secret-github-token/);
  });
});

describe("finding an entry by its file name", () => {
  it("show and confirm take `<id>.md` directly, and never a path: `../` ids find nothing", async () => {
    const root = await testdir(FILES);
    const kb = await openKnowledgeBase({ root, embedder: null });
    expect((await kb.show("ctx")).kind).toBe("found");
    expect(await kb.show("../../../etc/passwd")).toMatchObject({ kind: "not-found" });
    await expect(kb.confirm("../ctx")).rejects.toThrow(/is not an entry id/);
    expect(await kb.confirm("db")).toMatchObject({ kind: "done", changed: true });
  });
});

describe("anchor results that rest on a directory listing", () => {
  it("a glob without ** is resolved again when a file appears in its directory, and not otherwise", async () => {
    const root = await testdir({
      ...FILES,
      "knowledge/glob.md": entryText({ finding: "Handlers never await their writes.", evidence: "src/handlers/*.ts — every handler" }),
      "src/handlers/a.ts": "export function a() {}\n",
    });
    const first = await lint(root);
    expect(first.diagnostics.filter((d) => d.file === "knowledge/glob.md")).toEqual([]);
    expect((await lint(root)).computed.anchors).toBe(0);
    await writeFile(path.join(root, "src/other.ts"), "export const x = 1;\n"); // another directory: nothing to redo
    expect((await lint(root)).computed.anchors).toBe(0);
    await writeFile(path.join(root, "src/handlers/b.ts"), "export function b() {}\n");
    expect((await lint(root)).computed.anchors).toBe(1);
  });
});
