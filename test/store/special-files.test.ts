/** Entry paths that are not regular files (a FIFO, a link to one) are reported, never read: a read would block forever. */
import { execFileSync } from "node:child_process";
import { symlink } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { openKnowledgeBase } from "../../src/index.js";
import { entryText, SOURCE_FILES, testdir } from "../helpers/fixture.js";

describe("entry paths that are not regular files", () => {
  it.skipIf(process.platform === "win32")("a FIFO named like an entry, and a link to one, are `not-a-file` errors; check and search finish", async () => {
    const root = await testdir({ ...SOURCE_FILES, "knowledge/real.md": entryText(), "knowledge/pipes/.keep": "" });
    execFileSync("mkfifo", [path.join(root, "knowledge/pipe.md")]);
    execFileSync("mkfifo", [path.join(root, "knowledge/pipes/p")]);
    await symlink(path.join(root, "knowledge/pipes/p"), path.join(root, "knowledge/linked.md"));
    const kb = await openKnowledgeBase({ root, embedder: null });
    const { diagnostics } = await kb.check();
    const problems = diagnostics.filter((d) => d.rule === "not-a-file").map((d) => d.file).sort();
    expect(problems).toEqual(["knowledge/linked.md", "knowledge/pipe.md"]);
    const found = await kb.search("context cancellation middleware");
    expect(found.results.map((r) => r.id)).toEqual(["real"]);
  }, 20_000);

  it.skipIf(process.platform === "win32")("an anchor on a FIFO in the repository is unresolved, not a read that never ends", async () => {
    const root = await testdir({ ...SOURCE_FILES, "knowledge/fifo.md": entryText({ evidence: "src/queue.ts:1-2, drain() — reads the pipe." }) });
    execFileSync("mkfifo", [path.join(root, "src/queue.ts")]);
    const kb = await openKnowledgeBase({ root, embedder: null });
    const { diagnostics } = await kb.check();
    expect(diagnostics.filter((d) => d.file === "knowledge/fifo.md").map((d) => d.rule)).toContain("anchor-unresolved");
    expect((await kb.index()).entries).toBe(1);
  }, 20_000);
});
