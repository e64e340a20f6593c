/** Issue 7 "The decay clock": runs, not days; future dates; runs per branch and clone; merges. Real git where branches matter. */
import { projectLedger } from "../../src/ledger/index.js";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { git } from "../../examples/scenario.js";
import { openKnowledgeBase, type KnowledgeBase } from "../../src/knowledge-base.js";
import { clockAt, databaseEntries, entry, events, fm, project, read, type Clock } from "./setup.js";

const LITERAL = { holdout: "off" as const };
const counter = async (kb: KnowledgeBase, id: string) => (await kb.status({ all: true })).entries.find((e) => e.id === id)?.unconfirmedRuns;
/** `runs` reviews within one day, 20 minutes apart, each injecting `query` into agent a. */
async function sameDay(kb: KnowledgeBase, clock: Clock, runs: number, prefix: string, keywords = ["database"]) {
  const archived: string[][] = [];
  for (let i = 1; i <= runs; i++) {
    clock.now = new Date(clock.now.getTime() + 20 * 60_000);
    await kb.inject({ run: `${prefix}${i}`, agent: "a", keywords });
    archived.push((await kb.recordFindings(`${prefix}${i}`, [])).archived);
  }
  return archived;
}

describe("a clock stepped back", () => {
  it("an independent confirmation made while the clock is behind the ledger still resets the counter: events are stamped after the ledger's latest", async () => {
    const clock = clockAt("2026-03-01T15:00:00.000Z");
    const { kb } = await project(databaseEntries(1), { config: { ...LITERAL, decayAfterRuns: 3 }, clock });
    // Two reviews while this host's clock ran five hours ahead.
    for (const run of ["r1", "r2"]) {
      clock.now = new Date(clock.now.getTime() + 60_000);
      await kb.inject({ run, agent: "a", keywords: ["database", "connections"] });
    }
    expect(await counter(kb, "db-1")).toBe(2);
    // NTP steps the clock back to the true time; an agent that was not shown db-1 re-finds it.
    clock.now = new Date("2026-03-01T10:00:00.000Z");
    const found = await kb.recordFindings("r3", [{ agent: "b", text: "Database connections are not released on error paths in the repository layer.", entry: "db-1" }]);
    expect(found.confirmations).toEqual([expect.objectContaining({ entry: "db-1", provenance: "independent" })]);
    expect(await counter(kb, "db-1")).toBe(0);
    const stamped = (await events(kb)).filter((e) => e.type === "confirmed").map((e) => e.time);
    const injected = (await events(kb)).filter((e) => e.type === "injected").map((e) => e.time);
    expect(stamped[0]! > injected.at(-1)!).toBe(true);
    // One more review, the next day (a confirmation's own day does not count): 1 run since it, not 3 (which archived it).
    clock.tick();
    await kb.inject({ run: "r4", agent: "a", keywords: ["database", "connections"] });
    expect(await counter(kb, "db-1")).toBe(1);
    expect((await kb.decay()).archived).toEqual([]);
  });

  it("injections made while the clock is still behind sort after the confirmation before them, and count against it", async () => {
    const clock = clockAt("2026-03-01T15:00:00.000Z");
    const { kb } = await project(databaseEntries(1), { config: { ...LITERAL, decayAfterRuns: 3 }, clock });
    await kb.inject({ run: "r1", agent: "a", keywords: ["database", "connections"] });
    // Stepped back five hours: a confirmation, then three reviews, all before the clock catches up with the ledger.
    clock.now = new Date("2026-03-01T10:00:00.000Z");
    await kb.recordFindings("r2", [{ agent: "b", text: "Database connections are not released on error paths in the repository layer.", entry: "db-1" }]);
    clock.now = new Date("2026-03-01T11:00:00.000Z");
    for (const run of ["r3", "r4", "r5"]) {
      clock.now = new Date(clock.now.getTime() + 60_000);
      await kb.inject({ run, agent: "a", keywords: ["database", "connections"] });
    }
    const order = (await events(kb)).filter((e) => e.type === "confirmed" || (e.type === "injected" && e.entries.length)).map((e) => (e.type === "injected" ? e.run : "confirmed"));
    expect(order).toEqual(["r1", "confirmed", "r3", "r4", "r5"]);
  });

  it("a ledger line dated many hours ahead (a pull request's) does not drag new events after it: the step back followed is bounded", async () => {
    const clock = clockAt("2026-03-01T10:00:00.000Z");
    const { kb } = await project(databaseEntries(1), { config: LITERAL, clock });
    await kb.ledger.append([{ type: "injected", run: "pr-line", agent: "z", entries: ["db-1"], time: "2026-03-02T06:00:00.000Z" }]);
    await kb.inject({ run: "r1", agent: "a", keywords: ["database", "connections"] });
    const mine = (await events(kb)).filter((e) => e.type === "injected" && e.run === "r1");
    expect(mine.map((e) => e.time)).toEqual(["2026-03-01T10:00:00.000Z"]);
  });
});

describe("the decay clock counts runs, not days", () => {
  it("12 runs on the day an entry was created count: it decays at the 10th (cairn new)", async () => {
    const clock = clockAt("2026-03-01T06:00:00.000Z");
    const { kb } = await project({}, { config: LITERAL, clock });
    expect(await kb.newEntry({ slug: "db-pool", finding: "Database pool size is hard-coded and ignores the configured limit.", evidence: ["src/auth.ts:1-2, handleRequest()"], verify: ["Check the pool size."] })).toMatchObject({ kind: "created" });
    const archived = await sameDay(kb, clock, 12, "r");
    expect(archived.findIndex((a) => a.includes("db-pool")) + 1).toBe(10);
  });

  it("an entry written by hand with lastConfirmed today: the first injection records the hand edit, later runs that day count", async () => {
    const clock = clockAt("2026-03-01T06:00:00.000Z");
    const { kb } = await project({ "knowledge/db-pool.md": entry("Database pool size is hard-coded.", { fm: "lastConfirmed: 2026-03-01\nprovenance: independent" }) }, { config: LITERAL, clock });
    expect(await counter(kb, "db-pool")).toBe(0);
    const archived = await sameDay(kb, clock, 12, "r");
    expect((await events(kb)).filter((e) => e.type === "hand-confirmed")).toEqual([expect.objectContaining({ entry: "db-pool", date: "2026-03-01" })]);
    expect(archived.findIndex((a) => a.includes("db-pool")) + 1).toBe(10);
  });

  it("at 40 runs a day, an entry independently confirmed in the morning decays 10 runs later the same day", async () => {
    const clock = clockAt("2026-03-01T06:00:00.000Z");
    const { kb } = await project(databaseEntries(1), { config: LITERAL, clock });
    await kb.inject({ run: "r0", agent: "a", keywords: ["database"] });
    // Another agent re-finds it on its own: lastConfirmed becomes today, the event carries the time.
    expect((await kb.recordFindings("r0", [{ agent: "b", text: "Database connections are not released on error paths." }])).confirmations[0]!.provenance).toBe("independent");
    expect(await read(kb.layout.root, "knowledge/db-1.md")).toContain("lastConfirmed: 2026-03-01");
    const archived = await sameDay(kb, clock, 12, "r");
    expect(archived.findIndex((a) => a.includes("db-1")) + 1).toBe(10);
  });

  it("a future lastConfirmed grants no immunity: it is a check error, the gate withholds the entry, and the clock ignores the date", async () => {
    const { kb, clock } = await project({ "knowledge/db-1.md": entry("Database connections are not released on error paths.", { fm: "lastConfirmed: 2030-01-01\nprovenance: independent" }) }, { config: LITERAL });
    expect((await kb.check()).diagnostics).toEqual([expect.objectContaining({ rule: "date-in-future", severity: "error" })]);
    // Never injected while the date is in the future (issue 8's gate), so it cannot stay in prompts on a date that never comes.
    clock.tick();
    const result = await kb.inject({ run: "r1", agent: "a", keywords: ["database"] });
    expect(result.entries).toEqual([]);
    expect(result.warnings.join("\n")).toMatch(/withheld db-1: date-in-future/);
    // And the decay clock treats the future date as no confirmation: every injecting run counts.
    const injected = Array.from({ length: 10 }, (_, i) => ({ v: 1, eventId: `E${i}`, time: `2026-03-${String(i + 2).padStart(2, "0")}T10:00:00.000Z`, type: "injected" as const, run: `r${i}`, agent: "a", entries: ["db-1"] }));
    expect(projectLedger(injected, [{ id: "db-1", lastConfirmed: "2030-01-01" }], { today: "2026-03-20" }).get("db-1")!.unconfirmedRuns).toBe(10);
  });
});

describe("runs are distinct per branch and clone", () => {
  async function repo(config: Record<string, unknown> = LITERAL) {
    const { kb, root, clock } = await project(databaseEntries(1), { config, origin: undefined });
    git(root, ["init", "-q", "-b", "main"]);
    git(root, ["add", "-A"]);
    git(root, ["commit", "-q", "-m", "knowledge"]);
    return { kb, root, clock };
  }
  const commit = (root: string, message: string) => {
    git(root, ["add", "-A"]);
    git(root, ["commit", "-q", "-m", message]);
  };

  it("two branches' pr-1 are two runs after a union merge; injection events record `<branch>@<clone id>`", async () => {
    const { kb, root, clock } = await repo();
    git(root, ["checkout", "-q", "-b", "feature"]);
    clock.tick();
    await kb.inject({ run: "pr-1", agent: "a", keywords: ["database"] });
    commit(root, "review on feature");
    git(root, ["checkout", "-q", "main"]);
    clock.tick();
    await kb.inject({ run: "pr-1", agent: "a", keywords: ["database"] });
    commit(root, "review on main");
    git(root, ["merge", "-q", "--no-edit", "feature"]);
    const injected = (await events(kb)).filter((e) => e.type === "injected");
    expect(injected.map((e) => e.type === "injected" && e.origin)).toEqual([expect.stringMatching(/^feature@[0-9a-f]{8}$/), expect.stringMatching(/^main@[0-9a-f]{8}$/)]);
    expect(await counter(kb, "db-1")).toBe(2);
  });

  it("after a merge, an entry past its limit is not injected again and the next command that runs decay archives it", async () => {
    const { kb, root, clock } = await repo({ ...LITERAL, decayAfterRuns: 3 });
    const reviews = async (prefix: string, n: number) => {
      for (let i = 1; i <= n; i++) {
        clock.tick();
        await kb.inject({ run: `${prefix}${i}`, agent: "a", keywords: ["database"] });
      }
    };
    git(root, ["checkout", "-q", "-b", "feature"]);
    await reviews("f", 2);
    commit(root, "feature reviews");
    git(root, ["checkout", "-q", "main"]);
    await reviews("m", 2);
    commit(root, "main reviews");
    git(root, ["merge", "-q", "--no-edit", "feature"]);
    const row = (await kb.status()).entries[0]!;
    expect(row).toMatchObject({ unconfirmedRuns: 4, limit: "past-limit" });
    expect(row.warnings.join("\n")).toMatch(/past its decay limit: injected in 4 runs .*the next record or decay archives it/);
    clock.tick();
    const next = await kb.inject({ run: "m3", agent: "a", keywords: ["database"] });
    expect(next.entries).toEqual([]);
    expect(next.heldOut).toEqual([{ id: "db-1", reason: expect.stringMatching(/injected in 4 runs .*the next record or decay archives it/) }]);
    expect((await kb.recordFindings("m3", [])).archived).toEqual(["db-1"]);
  });

  it("status reports an entry archived on one side and independently confirmed on the other after, with what to do", async () => {
    const { kb, root, clock } = await repo({ ...LITERAL, decayAfterRuns: 1 });
    const base = git(root, ["rev-parse", "HEAD"]).trim();
    // main: injected once, archived by decay.
    clock.tick();
    await kb.inject({ run: "m1", agent: "a", keywords: ["database"] });
    expect((await kb.decay()).archived.map((c) => c.id)).toEqual(["db-1"]);
    commit(root, "main archives db-1");
    // feature (from before the archive): another agent re-finds it on its own, later.
    git(root, ["checkout", "-q", "-b", "feature", base]);
    clock.tick();
    const feature = await openKnowledgeBase({ root, now: () => clock.now, embedder: null, actor: "tester", config: { ...LITERAL, decayAfterRuns: 1 } });
    expect((await feature.recordFindings("f1", [{ agent: "b", text: "Database connections are not released on error paths." }])).confirmations[0]!.provenance).toBe("independent");
    commit(root, "feature confirms db-1");
    git(root, ["checkout", "-q", "main"]);
    git(root, ["merge", "-q", "--no-edit", "feature"]);
    const report = await kb.status();
    expect(report.conflicts).toEqual([
      {
        id: "db-1",
        kind: "confirmed-after-archive",
        message: expect.stringMatching(/^archived on main@[0-9a-f]{8} at .*, but independently confirmed in run f1 by agent b on feature@[0-9a-f]{8} after that/),
        fix: "if the pattern still holds, cairn restore db-1 (it was re-found after it was archived); if not, nothing — it stays archived",
      },
    ]);
    // Shown without --all, because it needs a decision.
    expect(report.entries.map((e) => [e.id, e.state])).toEqual([["db-1", "archived"]]);
  });

  it("status reports an entry archived on one side by runs the other side's independent confirmation, made before, resets", async () => {
    const { kb, root, clock } = await repo({ ...LITERAL, decayAfterRuns: 3 });
    for (const run of ["r1", "r2"]) {
      clock.tick();
      await kb.inject({ run, agent: "a", keywords: ["database"] });
    }
    commit(root, "two reviews");
    git(root, ["branch", "b1"]);
    // main: another agent re-finds it on its own.
    clock.tick();
    expect((await kb.recordFindings("r9", [{ agent: "b", text: "Database connections are not released on error paths." }])).confirmations[0]!.provenance).toBe("independent");
    commit(root, "main confirms db-1");
    // b1 (which never saw that confirmation): a third run, and decay archives it at 3 of 3.
    git(root, ["checkout", "-q", "b1"]);
    clock.tick();
    await kb.inject({ run: "r3", agent: "a", keywords: ["database"] });
    expect((await kb.decay()).archived.map((c) => c.id)).toEqual(["db-1"]);
    commit(root, "b1 decays db-1");
    git(root, ["checkout", "-q", "main"]);
    git(root, ["merge", "-q", "--no-edit", "b1"]);
    // Counted from the confirmation, one run injected it: the archive was made without knowing of it.
    const report = await kb.status();
    expect(report.conflicts).toEqual([
      {
        id: "db-1",
        kind: "archived-unaware-of-confirmation",
        message: expect.stringMatching(/^archived on b1@[0-9a-f]{8} at .* by decay after 3 runs, but it was independently confirmed in run r9 by agent b on main@[0-9a-f]{8} at .*, before that, on the other side of a merge: counted from that confirmation, 1 of those runs remain — the side that archived it did not know$/),
        fix: "cairn restore db-1 (it was re-found before it was archived); if the pattern no longer holds, nothing — it stays archived",
      },
    ]);
    expect(report.entries.map((e) => [e.id, e.state])).toEqual([["db-1", "archived"]]);
    // An archive the merged ledger bears out is no conflict: restored, then three more runs, then decay.
    await kb.restore("db-1");
    for (const run of ["r4", "r5", "r6"]) {
      clock.tick();
      await kb.inject({ run, agent: "a", keywords: ["database"] });
    }
    expect((await kb.decay()).archived.map((c) => c.id)).toEqual(["db-1"]);
    expect((await kb.status()).conflicts).toEqual([]);
    // Nor is a limit raised after the archive: the archiving side's own count is the measure.
    const raised = await openKnowledgeBase({ root, now: () => clock.now, embedder: null, actor: "tester", config: { ...LITERAL, decayAfterRuns: 5 } });
    expect((await raised.status()).conflicts).toEqual([]);
  });
});

describe("hand edits", () => {
  it("a human editing lastConfirmed to today mid-day: runs before the edit do not count after it, runs after it do", async () => {
    const clock = clockAt("2026-03-01T06:00:00.000Z");
    const { kb } = await project(databaseEntries(1), { config: LITERAL, clock });
    await sameDay(kb, clock, 5, "m");
    expect(await counter(kb, "db-1")).toBe(5);
    const file = path.join(kb.layout.knowledge, "db-1.md");
    await writeFile(file, (await read(kb.layout.root, "knowledge/db-1.md")).replace("lastConfirmed: 2026-02-12", "lastConfirmed: 2026-03-01"));
    expect(await counter(kb, "db-1")).toBe(0);
    await sameDay(kb, clock, 3, "a");
    expect(await counter(kb, "db-1")).toBe(3);
  });

  it("new and set-status leave events; every change names its actor", async () => {
    const { kb } = await project(databaseEntries(1), { actor: "Jane Doe", config: { holdout: "off" } });
    await kb.newEntry({ slug: "cache-tenant", finding: "Cache keys omit the tenant id.", evidence: ["src/auth.ts"], verify: ["Check the cache key."] });
    await kb.setStatus("db-1", "verified");
    const written = await events(kb);
    expect(written.map((e) => [e.type, e.actor])).toEqual([
      ["created", "Jane Doe"],
      ["status-set", "Jane Doe"],
    ]);
    expect(written[1]).toMatchObject({ entry: "db-1", from: "observed", to: "verified" });
    expect(fm).toBeTypeOf("function");
  });
});
