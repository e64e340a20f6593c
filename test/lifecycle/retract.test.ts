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

describe("an id archived, retracted and created again", () => {
  it("is a new entry, not a copy a merge kept: no archived-but-active conflict; a file moved back by hand still is one", async () => {
    const { kb, root, clock } = await project(databaseEntries(2), { config: { holdout: "off", decayAfterRuns: 1 } });
    git(root, "init", "-q");
    clock.tick();
    await kb.inject({ run: "r1", agent: "a", keywords: ["database", "connections", "pool"] });
    const gone = (await kb.decay()).archived[0]?.id;
    expect(gone).toBeDefined();
    const kept = gone === "db-1" ? "db-2" : "db-1";
    expect(await kb.archive(kept, "by hand")).toMatchObject({ kind: "done" });
    git(root, "add", "-A");
    git(root, "commit", "-qm", "archived");
    clock.tick();
    expect(await kb.retract(gone!)).toMatchObject({ kind: "done" });
    const text = "Database connections are never returned to the pool when a query times out in the worker.";
    expect(await kb.newEntry({ slug: gone!, finding: text, evidence: ["src/auth.ts:1-2, handleRequest()"], verify: ["grep for release() in src/"] })).toMatchObject({ kind: "created" });
    // Before: "the ledger says it was archived …, but the file is active here (a merge kept the active copy)".
    expect((await kb.status()).conflicts.filter((c) => c.id === gone)).toEqual([]);
    // The real case stays reported: the archived file put back in knowledge/ with no event after the archive.
    git(root, "mv", `knowledge/archive/${kept}.md`, `knowledge/${kept}.md`);
    expect((await kb.status()).conflicts.filter((c) => c.id === kept).map((c) => c.kind)).toEqual(["archived-but-active"]);
  });
});
