/** What `check` reports beside the entries: ledger files that are not regular files. */
import { mkdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { openKnowledgeBase } from "../../src/index.js";
import { entryText, SOURCE_FILES, testdir } from "../helpers/fixture.js";

describe("check: ledger files that are not regular files", () => {
  it("a link (even inside the repository) or a directory under a ledger file's name is an error naming it", async () => {
    const root = await testdir({ ...SOURCE_FILES, "knowledge/ctx.md": entryText(), "notes/events.jsonl": "" });
    const ledger = path.join(root, "knowledge/.ledger");
    await mkdir(path.join(ledger, "2026-12.jsonl"), { recursive: true });
    await symlink(path.join(root, "notes/events.jsonl"), path.join(ledger, "2026-11.jsonl"));
    await writeFile(path.join(ledger, "2026-10.jsonl"), "");
    const kb = await openKnowledgeBase({ root, embedder: null });
    // Before: check passed (0 errors) while inject and record refused to append to this month's file.
    const check = await kb.check();
    const found = check.diagnostics.filter((d) => d.rule === "ledger-not-a-file");
    expect(found.map((d) => [d.file, d.severity])).toEqual([
      ["knowledge/.ledger/2026-11.jsonl", "error"],
      ["knowledge/.ledger/2026-12.jsonl", "error"],
    ]);
    expect(found[0]!.message).toMatch(/is a symbolic link: ledger files must be regular files/);
    expect(found[1]!.message).toMatch(/is a directory/);
    expect(check.errors).toBe(2);
  });
});
