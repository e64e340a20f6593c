/** The report's data model over a real review history (made through the library) and over hand-written ledgers. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_CONFIG } from "../../src/config.js";
import type { LedgerEvent } from "../../src/ledger/events.js";
import type { EntryStatusRow } from "../../src/lifecycle/status.js";
import { buildReportModel } from "../../src/report/model.js";
import { buildSeries, windowRuns } from "../../src/report/series.js";
import type { ReportEntry, ReportModel } from "../../src/report/types.js";
import { CONFIG, reviewHistory, XSS_TITLE, type History } from "./fixture.js";

let history: History;
let model: ReportModel;
const entry = (id: string): ReportEntry => {
  const found = model.entries.find((e) => e.id === id);
  if (!found) throw new Error(`no entry ${id} in the report`);
  return found;
};
const sum = (e: ReportEntry, key: "injected" | "heldOut" | "independent" | "primed") => e.series.reduce((n, p) => n + p[key], 0);

beforeAll(async () => {
  history = await reviewHistory();
  model = await history.kb.report();
}, 120_000);

afterAll(async () => {
  await history?.cleanup();
});

describe("report model: every entry", () => {
  it("lists active entries, then archived ones, and agrees with cairn status --all on every counter", async () => {
    const status = await history.kb.status({ all: true });
    expect(model.entries.map((e) => e.id)).toEqual(status.entries.map((e) => e.id));
    expect(model.entries.map((e) => e.state)).toEqual([...Array(6).fill("active"), ...Array(4).fill("archived")]);
    for (const row of status.entries) {
      const e = entry(row.id);
      expect({ runs: e.decay.runs, held: e.decay.heldOutRuns, confirmations: e.confirmations, evidence: e.holdout.evidence, warnings: e.warnings }).toEqual({
        runs: row.unconfirmedRuns,
        held: row.heldOutRuns,
        confirmations: row.confirmations,
        evidence: row.evidence,
        warnings: row.warnings,
      });
    }
    // A retracted entry has no row, only its timeline events.
    expect(model.entries.some((e) => e.id === "wrong-claim")).toBe(false);
  });

  it("gives each its decay bar: counter, limit, near-decay threshold and where it stands", () => {
    expect(model.config).toEqual({ ...CONFIG, holdoutRuns: 3, maxPerAgent: 5 });
    expect(entry("token-compare").decay).toEqual({ state: "near", runs: 4, limit: 6, nearAt: 3, heldOutRuns: 0, holdoutRuns: 3 });
    expect(entry("moved-handler").decay).toMatchObject({ state: "last-chance", runs: 5, heldOutRuns: 1 });
    expect(entry("pool-size").decay).toMatchObject({ state: "ok", runs: 0 });
    expect(entry("cache-stampede").decay.state).toBe("archived");
  });

  it("tells independent from primed confirmations, run by run, and the holdout outcome", () => {
    // security is shown the token pattern every run, except the one it was withheld in — and found it then.
    const token = entry("token-compare");
    expect(token.confirmations).toEqual({ independent: 1, primed: 9 });
    expect(token.holdout).toEqual({ withheld: 1, found: 1, evidence: "independent" });
    const withheld = token.series.filter((p) => p.heldOut > 0);
    expect(withheld).toEqual([{ run: 5, injected: 0, heldOut: 1, independent: 1, primed: 0 }]);
    // performance reports the cache stampede only when shown it: withheld 3 times, never found, archived.
    const stampede = entry("cache-stampede");
    expect(stampede.holdout).toEqual({ withheld: 3, found: 0, evidence: "primed-only" });
    expect(stampede.archivedReason).toMatch(/primed-only/);
    expect(stampede.series.map((p) => [p.injected, p.heldOut, p.primed])).toEqual([...Array(5).fill([1, 0, 1]), ...Array(3).fill([0, 1, 0])]);
    // The series add up to the ledger's counts for every entry.
    for (const e of model.entries) {
      expect([sum(e, "independent"), sum(e, "primed"), sum(e, "heldOut")]).toEqual([e.confirmations.independent, e.confirmations.primed, e.holdout.withheld]);
    }
  });

  it("shows the last verification and the anchor drift state", () => {
    expect(entry("pool-size").verification).toEqual({
      state: "failed",
      time: "2026-03-11T10:00:00.000Z",
      message: expect.stringMatching(/^verification failed on 2026-03-11: `size: 10` no longer matches in src\/db\.ts — likely fixed/),
    });
    expect(entry("token-compare").verification.state).toBe("passed");
    expect(entry("moved-handler").verification.state).toBe("not-mechanical");
    // Failed at the first verify, then restored by hand: the failure no longer stands.
    expect(entry("query-in-loop").verification).toMatchObject({ state: "outdated", message: null });
    expect(entry("moved-handler").drift).toEqual({
      state: "drifted",
      problems: [{ rule: "anchor-moved", severity: "warning", line: 8, message: "anchor drift: src/auth.ts:1-3, handleRequest() — the cited lines moved to 4-6" }],
    });
    expect(entry("pool-size").drift.problems.map((p) => p.rule)).toEqual(["anchor-changed"]);
    expect(entry("missing-file").drift).toMatchObject({ state: "unresolved", problems: [{ rule: "anchor-unresolved", severity: "error" }] });
    expect(entry("query-in-loop").drift).toEqual({ state: "ok", problems: [] });
  });

  it("keeps untrusted text as text (the page escapes it), with titles from `title` or the finding's first sentence", () => {
    expect(entry("html-title").title).toBe(XSS_TITLE);
    expect(entry("token-compare").title).toBe("Tokens compared in non-constant time");
    expect(entry("pool-size").title).toBe("Database pool size is hard-coded and ignores the configured limit.");
    expect(entry("token-compare")).toMatchObject({ tags: ["auth", "timing"], agents: ["security"], path: "knowledge/token-compare.md", provenance: "independent" });
  });
});

describe("report model: runs, agents, timeline, summary", () => {
  it("puts the runs in order on the x axis with what each run gave and found", () => {
    expect(model.runs.map((r) => r.label)).toEqual(Array.from({ length: 10 }, (_, i) => `pr-${i + 1}`));
    expect(model.runs.every((r) => r.agents === 3 && r.origin?.startsWith("main@"))).toBe(true);
    expect(model.runs[5]).toMatchObject({ id: "pr-6", time: "2026-03-07T10:00:00.000Z" });
    const confirmed = model.runs.reduce((n, r) => n + r.independent + r.primed, 0);
    expect(confirmed).toBe(model.summary.confirmations.independent + model.summary.confirmations.primed);
  });

  it("has one series per agent (names compared case- and whitespace-insensitively), adding up to its totals", () => {
    expect(model.agents.map((a) => a.name)).toEqual(["correctness", "performance", "security"]);
    for (const agent of model.agents) {
      const total = (key: "injected" | "heldOut" | "independent" | "primed") => agent.series.reduce((n, p) => n + p[key], 0);
      expect([total("injected"), total("heldOut"), total("independent"), total("primed")]).toEqual([agent.totals.injected, agent.totals.heldOut, agent.totals.independent, agent.totals.primed]);
      expect(agent.totals.runs).toBe(10);
    }
    const performance = model.agents.find((a) => a.name === "performance")!;
    // Its "Performance " findings on pool-size count as its own: every one of them primed.
    expect(performance.totals).toMatchObject({ independent: 0, primed: 15 });
    expect(model.agents.find((a) => a.name === "correctness")!.totals).toMatchObject({ independent: 5, compounded: 1 });
  });

  it("has a timeline of lifecycle events, oldest first, with who and why", () => {
    expect(model.timeline.map((t) => `${t.type} ${t.entry}`)).toEqual([
      "compounded error-responses-echo-the-raw-sql-statement-back-to-the",
      "archived query-in-loop",
      "restored query-in-loop",
      "superseded old-advice",
      "archived old-advice",
      "status-set wrong-claim",
      "retracted wrong-claim",
      "archived cache-stampede",
      "archived html-title",
      "archived new-advice",
    ]);
    expect(model.timeline[0]).toMatchObject({ run: "pr-3", agents: ["security", "correctness"], actor: "tester" });
    expect(model.timeline[1]!.detail).toBe("retired by hand: the list endpoints were rewritten");
    expect(model.timeline.find((t) => t.type === "status-set")!.detail).toBe("observed → disputed");
    expect(model.timeline.find((t) => t.entry === "cache-stampede")).toMatchObject({ run: "pr-8", detail: expect.stringContaining("primed-only") });
  });

  it("sums it up at the top", () => {
    expect(model.summary).toEqual({
      active: 6,
      archived: 4,
      nearDecay: 1,
      lastChance: 2,
      pastLimit: 0,
      evidence: { independent: 4, "primed-only": 0, untested: 2 },
      verificationFailed: 1,
      drifted: 3,
      unresolved: 1,
      runs: 10,
      agents: 3,
      confirmations: { independent: 8, primed: 33 },
      holdout: { withheld: 11, found: 1 },
      conflicts: 0,
    });
    expect(model).toMatchObject({ version: 1, generatedAt: "2026-03-11T10:00:00.000Z", project: expect.stringMatching(/^cairn-diff-/) });
  });

  it("charts only the last N runs with `runs`, counters and totals unchanged", async () => {
    const last = await history.kb.report({ runs: 3 });
    expect(last.runs.map((r) => r.id)).toEqual(["pr-8", "pr-9", "pr-10"]);
    expect(last.summary).toEqual(model.summary);
    const token = last.entries.find((e) => e.id === "token-compare")!;
    expect(token.confirmations).toEqual({ independent: 1, primed: 9 });
    expect(token.series.map((p) => p.run)).toEqual([0, 1, 2]);
    expect(last.agents.map((a) => a.totals)).toEqual(model.agents.map((a) => a.totals));
  });
});

describe("report series over hand-written ledgers", () => {
  const base = { v: 1, actor: "t" };
  const injected = (eventId: string, time: string, run: string, agent: string, entries: string[], origin?: string): LedgerEvent => ({ ...base, eventId, time, type: "injected", run, agent, entries, ...(origin ? { origin } : {}) });
  const confirmed = (eventId: string, time: string, run: string, agent: string, entry: string, provenance: "independent" | "primed", origin?: string): LedgerEvent => ({
    ...base,
    eventId,
    time,
    type: "confirmed",
    run,
    agent,
    entry,
    provenance,
    findingHash: `h-${entry}`,
    ...(origin ? { origin } : {}),
  });

  it("tells two branches' pr-1 apart by branch, and an event without an origin joins the latest run of its id", () => {
    const series = buildSeries([
      injected("1", "2026-03-01T00:00:00.000Z", "pr-1", "security", ["a"], "main@c1"),
      injected("2", "2026-03-02T00:00:00.000Z", "pr-1", "security", ["a"], "feature@c1"),
      confirmed("3", "2026-03-02T01:00:00.000Z", "pr-1", "security", "a", "primed"),
      injected("4", "2026-03-03T00:00:00.000Z", "pr-2", "Security", ["a", "b"], "main@c1"),
    ]);
    expect(series.runs.map((r) => r.label)).toEqual(["pr-1 (main)", "pr-1 (feature)", "pr-2"]);
    expect(series.runs[1]).toMatchObject({ origin: "feature@c1", primed: 1 });
    expect(series.entries.get("a")).toEqual([
      { run: 0, injected: 1, heldOut: 0, independent: 0, primed: 0 },
      { run: 1, injected: 1, heldOut: 0, independent: 0, primed: 1 },
      { run: 2, injected: 1, heldOut: 0, independent: 0, primed: 0 },
    ]);
    expect(series.agents).toEqual([expect.objectContaining({ name: "security", totals: { injected: 4, heldOut: 0, independent: 0, primed: 1, compounded: 0, runs: 3 } })]);
  });

  it("counts a repeated inject call and a retried or union-merged confirmation once", () => {
    const series = buildSeries([
      injected("1", "2026-03-01T00:00:00.000Z", "r", "perf", ["a"]),
      injected("2", "2026-03-01T00:01:00.000Z", "r", "perf", ["a"]),
      confirmed("3", "2026-03-01T01:00:00.000Z", "r", "qa", "a", "independent"),
      confirmed("4", "2026-03-01T01:01:00.000Z", "r", "QA", "a", "independent"),
    ]);
    expect(series.runs).toEqual([{ id: "r", label: "r", time: "2026-03-01T00:00:00.000Z", agents: 1, injected: 1, heldOut: 0, independent: 1, primed: 0 }]);
    expect(series.entries.get("a")).toEqual([{ run: 0, injected: 1, heldOut: 0, independent: 1, primed: 0 }]);
    expect(windowRuns(series, 5)).toBe(series);
    expect(windowRuns(series, 0).runs).toEqual([]);
  });
});

describe("report decay states from status rows", () => {
  const row = (id: string, over: Partial<EntryStatusRow>): EntryStatusRow => ({
    id,
    path: `knowledge/${id}.md`,
    state: "active",
    lastConfirmed: "2026-03-01",
    provenance: "independent",
    status: "observed",
    unconfirmedRuns: 0,
    decayAfterRuns: 10,
    heldOutRuns: 0,
    holdoutRuns: 8,
    limit: "window",
    confirmations: { independent: 0, primed: 0 },
    holdout: { withheld: 0, found: 0 },
    evidence: "untested",
    lastInjected: null,
    archived: null,
    archivedReason: null,
    warnings: [],
    ...over,
  });

  it("maps the window, near decay (config nearDecayRatio), last chance, past the limit (after a merge) and archived", () => {
    const rows = [
      row("fresh", { unconfirmedRuns: 6 }),
      row("near", { unconfirmedRuns: 7 }),
      row("last", { unconfirmedRuns: 9, limit: "last-chance" }),
      row("merged", { unconfirmedRuns: 12, limit: "past-limit" }),
      row("gone", { state: "archived", unconfirmedRuns: 0 }),
    ];
    const model = buildReportModel({ status: { entries: rows, conflicts: [], warnings: [] }, entries: [], diagnostics: [], events: [], config: DEFAULT_CONFIG, project: "p", now: new Date(0) });
    expect(model.entries.map((e) => [e.id, e.decay.state, e.decay.nearAt])).toEqual([
      ["fresh", "ok", 7],
      ["near", "near", 7],
      ["last", "last-chance", 7],
      ["merged", "past-limit", 7],
      ["gone", "archived", 7],
    ]);
    expect(model.summary).toMatchObject({ active: 4, archived: 1, nearDecay: 1, lastChance: 1, pastLimit: 1 });
    // Without the entry's file (unreadable), the title falls back to the id and nothing is verified.
    expect(model.entries[0]).toMatchObject({ title: "fresh", finding: "", verification: { state: "never" }, drift: { state: "ok" }, series: [] });
  });
});
