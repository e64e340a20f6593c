/**
 * Issue 8: "8 processes recording while decay runs (0 failures, 0 double counts)". Real `cairn`
 * processes: every run's findings are recorded twice at once (an orchestrator's retry racing the
 * first call) while two `cairn decay` processes archive entries from under them.
 */
import { readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readLedger } from "../../src/ledger/read.js";
import { cairn } from "../helpers/cli.js";
import { databaseEntries, project } from "./setup.js";

describe("records racing decay", () => {
  it("8 record processes and 2 decay processes: every exit 0, each (run, agent, finding) counted once, each entry archived once", async () => {
    const { kb, root, clock } = await project(databaseEntries(8), { config: { decayAfterRuns: 2, holdout: "off" }, embedder: null });
    await writeFile(path.join(root, "cairn.config.json"), JSON.stringify({ decayAfterRuns: 2, holdout: "off", embedder: { provider: "none" } }));
    // Every entry is one run from decay: the first decay archives whatever a record did not just confirm.
    for (const run of ["r1", "r2", "r3", "r4"]) {
      clock.tick();
      await kb.inject({ run, agent: "a", keywords: ["database"] });
    }
    const findings = (run: number) => ({
      findings: [
        { agent: "a", text: "Database connections are not released on error paths.", entry: "db-1" },
        { agent: `b${run}`, text: "Database transactions stay open when a validation step throws midway." },
        { agent: `b${run}`, text: "Database queries inside loops cause N+1 round trips in list endpoints.", entry: "db-3" },
      ],
    });
    for (const run of [1, 2, 3, 4]) await writeFile(path.join(root, `f${run}.json`), JSON.stringify(findings(run)));
    const env = { CAIRN_ACTOR: "race" };
    const records = [1, 2, 3, 4].flatMap((run) => [0, 1].map(() => cairn(["--root", root, "record", "--run", `r${run}`, "--findings", `f${run}.json`, "--json"], { cwd: root, env })));
    const decays = [0, 1].map(() => cairn(["--root", root, "decay", "--json"], { cwd: root, env }));
    const results = await Promise.all([...records, ...decays]);
    for (const r of results) expect(r.code, r.stderr).toBe(0);

    const { events, warnings } = await readLedger(path.join(root, "knowledge/.ledger"));
    expect(warnings).toEqual([]);
    const confirmed = events.filter((e) => e.type === "confirmed");
    const keys = confirmed.map((e) => e.type === "confirmed" && `${e.run}/${e.agent}/${e.findingHash}`);
    // 4 runs × 3 findings, each once, though every run was recorded twice at the same time.
    expect(keys).toHaveLength(12);
    expect(new Set(keys).size).toBe(12);
    const archived = events.filter((e) => e.type === "archived").map((e) => e.type === "archived" && e.entry);
    expect(new Set(archived).size).toBe(archived.length);
    // Never in both places.
    const active = await readdir(path.join(root, "knowledge"));
    const inArchive = await readdir(path.join(root, "knowledge/archive"));
    expect(active.filter((f) => f.endsWith(".md") && inArchive.includes(f))).toEqual([]);
    const retried = results.slice(0, 8).map((r) => JSON.parse(r.stdout) as { confirmations: unknown[]; alreadyRecorded: unknown[] });
    expect(retried.reduce((n, r) => n + r.confirmations.length, 0)).toBe(12);
    expect(retried.reduce((n, r) => n + r.alreadyRecorded.length, 0)).toBe(12);
  }, 60_000);
});
