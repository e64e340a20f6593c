import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import type { History } from "../../src/lifecycle/history.js";
import { ledgerHistory } from "../../src/lifecycle/history.js";
import { databaseEntries, events, project } from "./setup.js";

function git(root: string, args: string[], date?: string): string {
  const env = {
    ...process.env,
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_AUTHOR_NAME: "Reviewer",
    GIT_AUTHOR_EMAIL: "reviewer@example.com",
    GIT_COMMITTER_NAME: "Reviewer",
    GIT_COMMITTER_EMAIL: "reviewer@example.com",
    ...(date ? { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date } : {}),
  };
  return execFileSync("git", args, { cwd: root, env, encoding: "utf8" });
}

const commit = (root: string, message: string, date: Date) => {
  git(root, ["add", "-A"]);
  git(root, ["commit", "-q", "-m", message], date.toISOString());
};

describe("history", () => {
  it("lists the entry's ledger events and the git log of its file across the archive move, oldest first", async () => {
    const { kb, root, clock } = await project(databaseEntries(2), { config: { decayAfterRuns: 2, holdout: "off" } });
    git(root, ["init", "-q", "-b", "main"]);
    commit(root, "add knowledge", clock.now);
    clock.tick();
    await kb.inject({ run: "r1", agent: "security", keywords: ["database", "connections"], limit: 1 });
    await kb.recordFindings("r1", [{ agent: "security", text: "Database connections are not released on error paths." }]);
    commit(root, "review r1", clock.now);
    clock.tick();
    await kb.inject({ run: "r2", agent: "performance", keywords: ["database", "connections"], limit: 1 });
    const recorded = await kb.recordFindings("r2", []);
    expect(recorded.archived).toEqual(["db-1"]);
    commit(root, "review r2", clock.now);

    const history = (await kb.history("db-1")) as History;
    expect(history.id).toBe("db-1");
    expect(history.warnings).toEqual([]);
    const ledger = history.items.filter((i) => i.source === "ledger");
    expect(ledger.map((i) => [i.type, i.run, i.agent, i.provenance])).toEqual([
      ["injected", "r1", "security", undefined],
      ["confirmed", "r1", "security", "primed"],
      ["injected", "r2", "performance", undefined],
      ["archived", "r2", undefined, undefined],
    ]);
    expect(ledger[3]!.detail).toMatch(/decayed: injected in 2 runs/);
    const commits = history.items.filter((i) => i.source === "git");
    // The file was created, untouched by the primed confirmation's run, then moved: git follows both paths.
    expect(commits.map((c) => c.source === "git" && c.subject)).toEqual(["add knowledge", "review r2"]);
    expect(history.items.map((i) => i.time)).toEqual([...history.items.map((i) => i.time)].sort());

    // Another entry's events are not mixed in.
    expect(ledgerHistory(await events(kb), "db-2")).toEqual([]);
  });

  it("works outside git with a warning, and reports unknown ids with suggestions", async () => {
    const { kb } = await project(databaseEntries(1));
    await kb.inject({ run: "r1", agent: "a", keywords: ["database"] });
    const history = (await kb.history("db-1")) as History;
    expect(history.items.map((i) => (i.source === "ledger" ? i.type : i.subject))).toEqual(["injected"]);
    expect(history.warnings).toEqual([expect.stringMatching(/^no git history: .*not inside a git repository/)]);
    expect(await kb.history("db-9")).toEqual({ kind: "not-found", id: "db-9", suggestions: ["db-1"] });
  });

  it("keeps the history of a retracted entry (its events outlive the file)", async () => {
    const { kb } = await project(databaseEntries(1));
    await kb.inject({ run: "r1", agent: "a", keywords: ["database"] });
    await kb.retract("db-1");
    const history = (await kb.history("db-1")) as History;
    expect(history.items.filter((i) => i.source === "ledger").map((i) => i.type)).toEqual(["injected", "retracted"]);
  });
});
