/** retract deletes an entry's file because git keeps its history: only what git has. */
import { execFileSync } from "node:child_process";
import { appendFile, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { databaseEntries, entry, events, project } from "./setup.js";

const git = (root: string, ...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false", ...args], { cwd: root, stdio: "pipe" });

describe("retract and work git does not have", () => {
  it("refuses an entry never committed or edited since, changing nothing; retracts a committed one", async () => {
    const { kb, root } = await project(databaseEntries(2));
    git(root, "init", "-q");
    git(root, "add", "-A");
    git(root, "commit", "-qm", "base");
    // Edited since the commit (a note a person is writing), and a new entry never added.
    await appendFile(path.join(root, "knowledge/db-1.md"), "\nA note only in the working tree.\n");
    await writeFile(path.join(root, "knowledge/fresh.md"), entry("Database pool sizes are never tuned for the worker count."));
    const before = { edited: await readFile(path.join(root, "knowledge/db-1.md"), "utf8"), fresh: await readFile(path.join(root, "knowledge/fresh.md"), "utf8") };

    // Before: both were deleted, and the retracted event keeps no text: the note existed nowhere afterwards.
    const edited = await kb.retract("db-1");
    expect(edited).toMatchObject({ kind: "refused", reason: expect.stringMatching(/^knowledge\/db-1\.md has changes that are not committed: retract deletes the file/) });
    const fresh = await kb.retract("fresh");
    expect(fresh).toMatchObject({ kind: "refused", reason: expect.stringMatching(/^knowledge\/fresh\.md was never committed/) });
    expect(await readFile(path.join(root, "knowledge/db-1.md"), "utf8")).toBe(before.edited);
    expect(await readFile(path.join(root, "knowledge/fresh.md"), "utf8")).toBe(before.fresh);
    expect((await events(kb)).filter((e) => e.type === "retracted")).toEqual([]);

    expect(await kb.retract("db-2")).toMatchObject({ kind: "done" });
    expect((await events(kb)).filter((e) => e.type === "retracted").map((e) => e.type === "retracted" && e.entry)).toEqual(["db-2"]);
  });
});
