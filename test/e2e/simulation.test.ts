/**
 * End to end: 30 scripted reviews by three agents in a real git repository, one day apart
 * (examples/scenario.ts). The lifecycle rules are checked on the raw artefacts: the ledger, the
 * files, and git history.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditGitDiffs, auditInjectionCap } from "../../examples/audit.js";
import { git, IDS, runSimulation, SCRIPT, type SimulationReport } from "../../examples/scenario.js";
import type { LedgerEvent } from "../../src/ledger/events.js";
import { fakeEmbedder } from "../helpers/fake-embedder.js";

let report: SimulationReport;
let events: LedgerEvent[];
let root: string;

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "cairn-e2e-"));
  report = await runSimulation(root, { embedder: fakeEmbedder() });
  events = (await report.kb.ledger.read()).events;
}, 120_000);

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const row = (run: number) => report.rows[run - 1]!;
const counter = (value: string) => (value.includes("/") ? Number(value.split("/")[0]) : NaN);
const confirmationsOf = (id: string) => events.filter((e): e is Extract<LedgerEvent, { type: "confirmed" }> => e.type === "confirmed" && e.entry === id);
const injectedRuns = (id: string, agent?: string) =>
  new Set(events.filter((e) => e.type === "injected" && e.entries.includes(id) && (!agent || e.agent === agent)).map((e) => (e as { run: string }).run));

describe("30-run simulation", () => {
  it("ran 30 reviews, one commit each, and leaves a knowledge base that passes check", async () => {
    expect(report.rows.map((r) => r.run)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect(report.rows.map((r) => r.date)).toEqual(Array.from({ length: 30 }, (_, i) => new Date(Date.parse("2026-03-02") + i * 86_400_000).toISOString().slice(0, 10)));
    expect(git(root, ["rev-list", "--count", "HEAD"]).trim()).toBe("31");
    expect(git(root, ["status", "--porcelain"]).trim()).toBe("");
    const check = await report.kb.check();
    expect(check.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  });

  it("(a) keeps a true pattern that an agent not shown it re-finds every few runs", async () => {
    const id = IDS.truePattern;
    // It was in front of security in every run: without the independent re-discoveries it would have decayed.
    expect(injectedRuns(id, "security").size).toBe(30);
    expect(injectedRuns(id, "correctness").size).toBe(0);
    expect(report.rows.flatMap((r) => r.archived)).not.toContain(id);
    expect(Math.max(...report.rows.map((r) => counter(r.counters.truePattern)))).toBe(SCRIPT.independentEvery - 1);
    const byAgent = (agent: string) => confirmationsOf(id).filter((c) => c.agent === agent);
    expect(byAgent("correctness").map((c) => c.provenance)).toEqual(Array(7).fill("independent"));
    expect(byAgent("security").map((c) => c.provenance)).toEqual(Array(30).fill("primed"));
    expect(report.rows.at(-1)!.lastConfirmed.truePattern).toBe(row(28).date);
    const status = (await report.kb.status()).entries.find((e) => e.id === id)!;
    expect(status).toMatchObject({ state: "active", provenance: "independent", confirmations: { independent: 7, primed: 30 } });
  });

  it("(b) archives a false positive that only primed agents re-confirm at exactly run 10, its lastConfirmed never moving", async () => {
    const id = IDS.falsePositive;
    expect(report.rows.map((r) => r.counters.falsePositive).slice(0, 10)).toEqual([...Array.from({ length: 9 }, (_, i) => `${i + 1}/10`), "archived"]);
    expect(report.rows.findIndex((r) => r.archived.includes(id)) + 1).toBe(10);
    expect(new Set(report.rows.map((r) => r.lastConfirmed.falsePositive))).toEqual(new Set(["2026-02-20"]));
    expect(confirmationsOf(id).map((c) => c.provenance)).toEqual(Array(10).fill("primed"));
    // It stays archived: nothing injects it after run 10, and the lone primed flag in run 10 did not compound.
    expect([...injectedRuns(id)].sort().at(-1)).toBe("run-10");
    expect(events.some((e) => e.type === "compounded" && e.entry === id)).toBe(false);
    const file = await readFile(path.join(root, "knowledge/archive", `${id}.md`), "utf8");
    expect(file).toMatch(/^lastConfirmed: 2026-02-20$/m);
    expect(file).toMatch(new RegExp(`^archived: ${row(10).date}$`, "m"));
    // In git, no commit ever touched its lastConfirmed line.
    const log = git(root, ["log", "-p", "--format=", "--", `knowledge/${id}.md`, `knowledge/archive/${id}.md`]);
    expect(log.split("\n").filter((l) => /^[+-]lastConfirmed/.test(l))).toEqual(["+lastConfirmed: 2026-02-20"]);
  });

  it("(c) a manual confirmation resets the counter: the entry decays 10 runs after it, not at run 10", () => {
    const run = SCRIPT.manualConfirmRun;
    expect(row(run).manual).toEqual([IDS.manual]);
    expect(row(run - 1).counters.manual).toBe(`${run - 1}/10`);
    expect(row(run).counters.manual).toBe("0/10");
    expect(row(run).lastConfirmed.manual).toBe(row(run).date);
    expect(row(10).counters.manual).toBe("4/10");
    expect(report.rows.findIndex((r) => r.archived.includes(IDS.manual)) + 1).toBe(run + 10);
  });

  it("(d) restores an archived pattern when two agents independently flag it again", async () => {
    const run = SCRIPT.recurRun;
    // Archived from run 16 (10 runs after the manual confirmation) until the recurrence.
    expect(report.rows.slice(SCRIPT.manualConfirmRun + 9, run - 1).map((r) => r.counters.manual)).toEqual(Array(run - SCRIPT.manualConfirmRun - 10).fill("archived"));
    expect(row(run).restored).toEqual([IDS.manual]);
    expect(row(run).counters.manual).toBe("0/10");
    expect(row(run).lastConfirmed.manual).toBe(row(run).date);
    const kinds = events.filter((e) => "entry" in e && e.entry === IDS.manual && "run" in e && e.run === `run-${run}`).map((e) => e.type);
    expect(kinds).toEqual(["restored", "compounded"]);
    expect(await readFile(path.join(root, "knowledge", `${IDS.manual}.md`), "utf8")).not.toMatch(/^archived/m);
    // And the new pattern compounded in run 14 was written as a fresh, independent entry.
    expect(row(SCRIPT.createRun).created).toEqual([IDS.compounded]);
    const created = git(root, ["show", `HEAD~${30 - SCRIPT.createRun}:knowledge/${IDS.compounded}.md`]);
    expect(created).toMatch(new RegExp(`^lastConfirmed: ${row(SCRIPT.createRun).date}$`, "m"));
    expect(created).toMatch(/^provenance: independent$/m);
  });

  it("(e) no agent ever received more than 5 entries in one run, and the cap was reached", () => {
    const audit = auditInjectionCap(events, 5);
    expect(audit.violations).toEqual([]);
    expect(audit.max).toBe(5);
    expect(audit.atCap).toBeGreaterThanOrEqual(10);
    // Security asked three times per run; the ledger holds at most two injections per (run, security).
    const securityCalls = events.filter((e) => e.type === "injected" && e.agent === "security" && e.run === "run-01");
    expect(securityCalls).toHaveLength(2);
  });

  it("(f) git history shows small diffs only: ≤ 2 changed lines per edited entry, append-only ledger, no deletions", () => {
    const audit = auditGitDiffs(root);
    expect(audit.violations).toEqual([]);
    const entries = audit.changes.filter((c) => c.kind === "entry");
    const inPlace = entries.filter((c) => c.status === "M");
    expect(inPlace.length).toBeGreaterThan(0);
    expect(Math.max(...inPlace.map((c) => Math.max(c.added, c.deleted)))).toBeLessThanOrEqual(2);
    expect(entries.filter((c) => c.status === "R")).toHaveLength(11);
    expect(entries.filter((c) => c.status === "A")).toEqual([expect.objectContaining({ path: `knowledge/${IDS.compounded}.md` })]);
    expect(audit.changes.filter((c) => c.kind === "ledger").every((c) => c.deleted === 0)).toBe(true);
  });
});
