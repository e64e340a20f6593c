/** Issue 7 "Audit trail": every change the tool makes to knowledge is a ledger event naming its actor; `history` shows it. */
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { git } from "../../examples/scenario.js";
import { cairn } from "../helpers/cli.js";
import { databaseEntries, entry, events, fm, project } from "./setup.js";

describe("audit trail", () => {
  it("new, confirm, set-status, record, compound, archive, restore, supersede and retract all name the library's actor", async () => {
    const { kb, clock } = await project(
      { ...databaseEntries(3), "knowledge/archive/old.md": entry("Cron jobs overlap when a run takes longer than the interval.", { fm: fm("archived: 2026-02-20", "archivedReason: decayed") }) },
      { actor: "Ada", embedder: null },
    );
    await kb.newEntry({ slug: "cache-tenant", finding: "Cache keys omit the tenant id.", evidence: ["src/auth.ts"], verify: ["Check the cache key."] });
    await kb.confirm("db-1");
    await kb.setStatus("db-1", "verified");
    clock.tick();
    await kb.inject({ run: "r1", agent: "a", keywords: ["database"] });
    await kb.recordFindings("r1", [{ agent: "b", text: "Database connections are not released on error paths.", entry: "db-1" }]);
    await kb.compound("r1", [{ text: "Export jobs drop write errors.", agents: ["b", "c"], evidence: ["src/auth.ts — exports"], verify: ["Await the writes."], durable: true }]);
    await kb.archive("db-2", "no longer relevant");
    await kb.restore("db-2");
    await kb.supersede("db-3", "db-1");
    await kb.retract("cache-tenant");
    const written = await events(kb);
    expect(new Set(written.map((e) => e.type))).toEqual(
      new Set(["created", "manual-confirmed", "status-set", "injected", "confirmed", "compounded", "archived", "restored", "superseded", "retracted"]),
    );
    expect(written.filter((e) => e.actor !== "Ada")).toEqual([]);
  });

  it("the CLI names `git config user.name` (or $CAIRN_ACTOR, else the OS user), and `cairn history` shows it", async () => {
    const { root } = await project(databaseEntries(1), { actor: null });
    git(root, ["init", "-q", "-b", "main"]);
    git(root, ["config", "user.name", "Grace Hopper"]);
    const isolated = { GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1", CAIRN_ACTOR: "" };
    expect((await cairn(["--root", root, "confirm", "db-1"], { cwd: root, env: isolated })).code).toBe(0);
    // The name is looked up as the process starts for the root the arguments name; from a subdirectory, and with
    // --root after the command name (left to the command line), it is the same root's.
    expect((await cairn(["confirm", "db-1"], { cwd: path.join(root, "knowledge"), env: isolated })).code).toBe(0);
    expect((await cairn(["confirm", "db-1", "--root", root], { cwd: os.tmpdir(), env: isolated })).code).toBe(0);
    expect((await cairn(["--root", root, "set-status", "db-1", "verified"], { cwd: root, env: { ...isolated, CAIRN_ACTOR: "ci-bot" } })).code).toBe(0);
    git(root, ["config", "--unset", "user.name"]);
    expect((await cairn(["--root", root, "set-status", "db-1", "disputed"], { cwd: root, env: isolated })).code).toBe(0);
    const history = await cairn(["--root", root, "history", "db-1"], { cwd: root, env: isolated });
    expect(history.code).toBe(0);
    const lines = history.stdout.split("\n");
    const confirmed = lines.filter((l) => l.includes("manual-confirmed"));
    expect(confirmed).toHaveLength(3);
    for (const line of confirmed) expect(line).toContain("Grace Hopper");
    expect(lines.find((l) => l.includes("observed → verified"))).toContain("ci-bot");
    expect(lines.find((l) => l.includes("verified → disputed"))).toContain(os.userInfo().username);
  });
});
