/**
 * A person saves an entry while cairn edits or moves it: the save is never lost. The save is made at the worst moment,
 * deterministically: when cairn opens its temp file (its new bytes are being written, the rename or the delete is next).
 */
import { writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";

/** What happens when cairn opens a temp file next to `dir` (once), set per test. */
const hook: { dir?: string; save?: () => void } = {};

vi.mock("node:fs/promises", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:fs/promises")>();
  const open = (async (file: string, ...rest: unknown[]) => {
    if (hook.save && hook.dir && path.dirname(String(file)) === hook.dir && String(file).endsWith(".tmp")) {
      const save = hook.save;
      hook.save = undefined;
      save();
    }
    return (real.open as (...a: unknown[]) => Promise<unknown>)(file, ...rest);
  }) as typeof real.open;
  return { ...real, default: { ...real, open }, open };
});

const { openKnowledgeBase } = await import("../../src/index.js");
const { entryText, SOURCE_FILES, testdir } = await import("../helpers/fixture.js");

describe("a save made while cairn writes the entry", () => {
  it("confirm: the edit is made again on the saved text (before: the save was reverted)", async () => {
    const root = await testdir({ ...SOURCE_FILES, "knowledge/ctx.md": entryText() });
    const file = path.join(root, "knowledge/ctx.md");
    const kb = await openKnowledgeBase({ root, embedder: null, actor: "tester" });
    await kb.init();
    const saved = `${await readFile(file, "utf8")}\nA note saved while cairn confirmed the entry.\n`;
    hook.dir = path.dirname(file);
    hook.save = () => writeFileSync(file, saved);
    expect((await kb.confirm("ctx")).kind).toBe("done");
    const after = await readFile(file, "utf8");
    expect(after).toContain("A note saved while cairn confirmed the entry.");
    expect(after).toMatch(/lastConfirmed: \d{4}-\d\d-\d\d/);
    expect(after).not.toContain("lastConfirmed: 2026-02-12");
  });

  it("archive: a save of the source while it is copied is in the archived file (before: deleted with the source)", async () => {
    const root = await testdir({ ...SOURCE_FILES, "knowledge/ctx.md": entryText() });
    const file = path.join(root, "knowledge/ctx.md");
    const kb = await openKnowledgeBase({ root, embedder: null, actor: "tester" });
    await kb.init();
    const saved = `${await readFile(file, "utf8")}\nA note saved while cairn archived the entry.\n`;
    hook.dir = path.join(root, "knowledge/archive");
    hook.save = () => writeFileSync(file, saved);
    expect((await kb.archive("ctx", "by hand")).kind).toBe("done");
    const archived = await readFile(path.join(root, "knowledge/archive/ctx.md"), "utf8");
    expect(archived).toContain("A note saved while cairn archived the entry.");
    expect(archived).toMatch(/^archived: /m);
    await expect(readFile(file, "utf8")).rejects.toThrow(/ENOENT/);
  });
});
