import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { lockEntry } from "../../src/store/pending.js";
import { changedLines, databaseEntries, entry, events, fm, project, read, snapshot } from "./setup.js";

const AUTH = "knowledge/auth-ctx.md";
const files = {
  [AUTH]: entry("Auth middleware often swallows context cancellation errors — check for ctx.Err() after upstream calls."),
  "knowledge/sql-concat.md": entry("SQL statements built by string concatenation allow injection; use parameterised queries.", { fm: "lastConfirmed: 2026-02-12\nprovenance: primed" }),
};

describe("record: matching", () => {
  it("matches a finding that cites an entry id explicitly, with score 1", async () => {
    const { kb } = await project(files);
    const result = await kb.recordFindings("r1", [{ agent: "security", text: "see the known issue", entry: "auth-ctx" }]);
    expect(result.confirmations).toEqual([
      expect.objectContaining({ entry: "auth-ctx", agent: "security", provenance: "independent", score: 1, explicit: true }),
    ]);
  });

  it("matches by similarity and reports the score; unrelated findings are returned as unmatched", async () => {
    const { kb } = await project(files);
    const result = await kb.recordFindings(
      "r1",
      [
        { agent: "security", text: "The auth middleware swallows context cancellation errors after upstream calls." },
        { agent: "security", text: "Thumbnail generation blocks the event loop while resizing large images." },
        { agent: "security", text: "cites a retracted entry", entry: "no-such-entry" },
      ],
      { dryRun: true },
    );
    expect(result.confirmations).toHaveLength(1);
    expect(result.confirmations[0]).toMatchObject({ entry: "auth-ctx", explicit: false });
    expect(result.confirmations[0]!.score).toBeGreaterThanOrEqual(kb.config.matchThreshold);
    expect(result.confirmations[0]!.score).toBeLessThanOrEqual(1);
    expect(result.unmatched).toEqual([
      expect.objectContaining({ agent: "security", text: expect.stringContaining("Thumbnail"), reason: "no entry above the match threshold" }),
      expect.objectContaining({ reason: 'cites unknown entry "no-such-entry"' }),
    ]);
  });
});

describe("record: provenance", () => {
  it("primed (the entry was injected into that agent in that run): a `confirmed` event, the file untouched byte for byte", async () => {
    const { kb, root, clock } = await project(files);
    const before = await read(root, AUTH);
    const injected = await kb.inject({ run: "r1", agent: "security", keywords: ["auth", "middleware", "cancellation"] });
    expect(injected.entries.map((e) => e.id)).toContain("auth-ctx");
    clock.tick(0.01);
    const result = await kb.recordFindings("r1", [{ agent: "security", text: "Auth middleware swallows context cancellation errors." }]);
    expect(result.confirmations).toEqual([expect.objectContaining({ entry: "auth-ctx", agent: "security", provenance: "primed" })]);
    expect(await read(root, AUTH)).toBe(before);
    const confirmed = (await events(kb)).filter((e) => e.type === "confirmed");
    expect(confirmed).toEqual([expect.objectContaining({ type: "confirmed", run: "r1", agent: "security", entry: "auth-ctx", provenance: "primed" })]);
    // Primed confirmations never reset the decay counter.
    const row = (await kb.status()).entries.find((e) => e.id === "auth-ctx")!;
    expect(row).toMatchObject({ unconfirmedRuns: 1, lastConfirmed: "2026-02-12", confirmations: { independent: 0, primed: 1 } });
  });

  it("the same finding is primed for the agent that was shown the entry and independent for another agent in the same run", async () => {
    const { kb } = await project(files);
    await kb.inject({ run: "r1", agent: "security", keywords: ["auth", "middleware", "cancellation"] });
    const result = await kb.recordFindings("r1", [
      { agent: "security", text: "Auth middleware swallows context cancellation errors." },
      { agent: "performance", text: "Auth middleware swallows context cancellation errors." },
    ]);
    expect(result.confirmations.map((c) => [c.agent, c.provenance])).toEqual([
      ["security", "primed"],
      ["performance", "independent"],
    ]);
  });

  it("an injection in another run does not make a finding primed", async () => {
    const { kb, clock } = await project(files);
    await kb.inject({ run: "r1", agent: "security", keywords: ["auth", "middleware", "cancellation"] });
    clock.tick();
    const result = await kb.recordFindings("r2", [{ agent: "security", text: "Auth middleware swallows context cancellation errors." }]);
    expect(result.confirmations[0]!.provenance).toBe("independent");
  });

  it("independent: lastConfirmed becomes today and provenance independent, a one/two-line change, plus an event", async () => {
    const { kb, root, clock } = await project(files);
    clock.tick(3);
    const before = await read(root, "knowledge/sql-concat.md");
    expect(before).toContain("provenance: primed");
    const result = await kb.recordFindings("r1", [{ agent: "security", text: "SQL statements are built by string concatenation, which allows injection." }]);
    expect(result.confirmations).toEqual([expect.objectContaining({ entry: "sql-concat", provenance: "independent" })]);
    const after = await read(root, "knowledge/sql-concat.md");
    expect(changedLines(before, after)).toEqual(["lastConfirmed: 2026-02-12 → lastConfirmed: 2026-03-04", "provenance: primed → provenance: independent"]);

    // Already independent: only the date line changes.
    const authBefore = await read(root, AUTH);
    await kb.recordFindings("r1", [{ agent: "performance", text: "x", entry: "auth-ctx" }]);
    expect(changedLines(authBefore, await read(root, AUTH))).toEqual(["lastConfirmed: 2026-02-12 → lastConfirmed: 2026-03-04"]);

    const confirmed = (await events(kb)).filter((e) => e.type === "confirmed");
    expect(confirmed.map((e) => e.type === "confirmed" && [e.entry, e.provenance, e.findingHash?.length])).toEqual([
      ["sql-concat", "independent", 16],
      ["auth-ctx", "independent", 16],
    ]);
  });

  it("an independent confirmation edits the entry under its lock: a status set meanwhile is kept, not written over", async () => {
    const { kb, root } = await project(files);
    // `set-status disputed` (another process) holds the entry and edits it while record waits.
    const release = await lockEntry(kb.layout, "auth-ctx");
    const recording = kb.recordFindings("r1", [{ agent: "security", text: "y", entry: "auth-ctx" }]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await read(root, AUTH)).toContain("lastConfirmed: 2026-02-12");
    await writeFile(path.join(root, AUTH), (await read(root, AUTH)).replace("provenance: independent", "provenance: independent\nstatus: disputed"));
    await release();
    await recording;
    const after = await read(root, AUTH);
    expect(after).toContain("status: disputed");
    expect(after).toContain("lastConfirmed: 2026-03-01");
  });

  it("two independent confirmations of one entry in a run edit the file once and record two events", async () => {
    const { kb, root } = await project(files);
    const result = await kb.recordFindings("r1", [
      { agent: "security", text: "y", entry: "auth-ctx" },
      { agent: "performance", text: "z", entry: "auth-ctx" },
    ]);
    expect(result.confirmations).toHaveLength(2);
    expect(await read(root, AUTH)).toContain("lastConfirmed: 2026-03-01");
    expect((await events(kb)).filter((e) => e.type === "confirmed")).toHaveLength(2);
  });

  it("a finding citing an archived entry restores it (the pattern recurred): `restored` names the run and the agent", async () => {
    const { kb, root } = await project({
      "knowledge/archive/old.md": entry("Cron jobs overlap when a run takes longer than the interval.", { fm: fm("archived: 2026-02-20", "archivedReason: decayed") }),
    });
    const result = await kb.recordFindings("r1", [{ agent: "ops", text: "overlapping cron", entry: "old" }]);
    expect(result.confirmations).toEqual([expect.objectContaining({ entry: "old", provenance: "independent", state: "restored" })]);
    expect(result.restored).toEqual(["old"]);
    const restored = await read(root, "knowledge/old.md");
    expect(restored).toContain("lastConfirmed: 2026-03-01");
    expect(restored).not.toMatch(/^archived/m);
    const kinds = (await events(kb)).filter((e) => "entry" in e && e.entry === "old");
    expect(kinds).toEqual([
      expect.objectContaining({ type: "restored", run: "r1", agent: "ops", reason: "recurred: independently re-found by ops in run r1" }),
      expect.objectContaining({ type: "confirmed", provenance: "independent", run: "r1", agent: "ops" }),
    ]);
  });
});

describe("record: dry run and decay (the spec's literal rule: holdout off)", () => {
  it("dryRun shows matches, scores and what would decay, and writes nothing (files and ledger identical)", async () => {
    const { kb, root, clock } = await project(databaseEntries(1), { config: { holdout: "off" } });
    for (let run = 1; run <= 10; run++) {
      clock.tick();
      await kb.inject({ run: `r${run}`, agent: "a", keywords: ["database"] });
    }
    const before = await snapshot(path.join(root, "knowledge"));
    const dry = await kb.recordFindings("r10", [{ agent: "b", text: "auth ctx", entry: "auth-ctx-missing" }], { dryRun: true });
    expect(dry).toMatchObject({ dryRun: true, archived: ["db-1"] });
    expect(await snapshot(path.join(root, "knowledge"))).toEqual(before);
  });

  it("dryRun reports a match and its provenance exactly as the real call then records it", async () => {
    const { kb, root } = await project(files);
    await kb.inject({ run: "r1", agent: "security", keywords: ["auth", "middleware", "cancellation"] });
    const before = await snapshot(path.join(root, "knowledge"));
    const findings = [
      { agent: "security", text: "Auth middleware swallows context cancellation errors." },
      { agent: "performance", text: "SQL statements built by string concatenation allow injection." },
    ];
    const dry = await kb.recordFindings("r1", findings, { dryRun: true });
    expect(await snapshot(path.join(root, "knowledge"))).toEqual(before);
    const real = await kb.recordFindings("r1", findings);
    expect(real.confirmations).toEqual(dry.confirmations);
    expect(real.unmatched).toEqual(dry.unmatched);
  });

  it("runs decay after recording: an entry injected in its 10th run without independent confirmation is archived", async () => {
    const { kb, root, clock } = await project(databaseEntries(2), { config: { holdout: "off" } });
    for (let run = 1; run <= 10; run++) {
      clock.tick();
      await kb.inject({ run: `r${run}`, agent: "a", keywords: ["database", "connections"], limit: 1 });
      const result = await kb.recordFindings(`r${run}`, [{ agent: "a", text: "Database connections are not released on error paths." }]);
      expect(result.confirmations[0]).toMatchObject({ entry: "db-1", provenance: "primed" });
      expect(result.archived).toEqual(run === 10 ? ["db-1"] : []);
    }
    expect(await read(root, "knowledge/archive/db-1.md")).toContain("archivedReason:");
  });

  it("an independent confirmation in the run that would have been the 10th keeps the entry", async () => {
    const { kb, clock } = await project(databaseEntries(1), { config: { holdout: "off" } });
    for (let run = 1; run <= 10; run++) {
      clock.tick();
      await kb.inject({ run: `r${run}`, agent: "a", keywords: ["database"] });
    }
    const real = await kb.recordFindings("r10", [{ agent: "b", text: "Database connections are not released on error paths." }]);
    expect(real.confirmations[0]).toMatchObject({ entry: "db-1", provenance: "independent" });
    expect(real.archived).toEqual([]);
    expect((await kb.status()).entries.find((e) => e.id === "db-1")!.unconfirmedRuns).toBe(0);
  });

  // A dry run once planned decay without the confirmations it had just planned, and listed db-1 as archived.
  it("dry run agrees with the real run when a planned independent confirmation saves an entry", async () => {
    const { kb, clock } = await project(databaseEntries(1), { config: { holdout: "off" } });
    for (let run = 1; run <= 10; run++) {
      clock.tick();
      await kb.inject({ run: `r${run}`, agent: "a", keywords: ["database"] });
    }
    const dry = await kb.recordFindings("r10", [{ agent: "b", text: "Database connections are not released on error paths." }], { dryRun: true });
    expect(dry.archived).toEqual([]);
  });
});
