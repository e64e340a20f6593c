/** An entry file that is listed but cannot be stat-ed (a link that loops): one file's error, not every command's. */
import { symlink } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { openKnowledgeBase } from "../../src/index.js";
import { entryText, SOURCE_FILES, testdir } from "../helpers/fixture.js";

describe("a committed link that loops (knowledge/loop.md -> loop.md)", () => {
  it("is an error on that file; status, check and inject go on with the other entries", async () => {
    const root = await testdir({ ...SOURCE_FILES, "knowledge/ctx.md": entryText() });
    await symlink("loop.md", path.join(root, "knowledge/loop.md"));
    const kb = await openKnowledgeBase({ root, embedder: null });
    // Before: statSync threw ELOOP out of the catalogue's refresh ("unexpected error", exit 3), and inject gave nothing.
    const check = await kb.check();
    expect(check.diagnostics.filter((d) => d.file === "knowledge/loop.md" && d.severity === "error")).not.toHaveLength(0);
    const status = await kb.status();
    expect(status.entries.map((e) => e.id)).toEqual(["ctx"]);
    const injected = await kb.inject({ run: "r1", agent: "a", keywords: ["cancellation", "middleware"], dryRun: true });
    expect(injected.entries.map((e) => e.id)).toEqual(["ctx"]);
  });

  it("a link to nothing is an error on that file too (it was skipped without a word)", async () => {
    const root = await testdir({ ...SOURCE_FILES, "knowledge/ctx.md": entryText() });
    await symlink("gone.md", path.join(root, "knowledge/dangling.md"));
    const kb = await openKnowledgeBase({ root, embedder: null });
    const check = await kb.check();
    expect(check.diagnostics.filter((d) => d.file === "knowledge/dangling.md" && d.severity === "error").map((d) => d.rule)).toEqual(["symlink-outside"]);
    expect((await kb.status()).entries.map((e) => e.id)).toEqual(["ctx"]);
  });
});
