/** The figures of issue 7's goal table, computed from one simulation's hidden truth, traces and ledger. */
import { auditInjectionCap } from "../../../examples/audit.js";
import type { LedgerEvent } from "../../../src/index.js";
import type { SimOutcome } from "./sim.js";

export type Figures = {
  /**
   * True patterns only one agent can find / several agents can find: how many were archived at some run (wrongly:
   * they are live throughout), and how many are still archived after the last run (recurrence restores some).
   */
  trueSingle: { archived: number; archivedAtEnd: number; total: number };
  trueMulti: { archived: number; archivedAtEnd: number; total: number };
  /** False positives relevant in 20 or more runs, and how many of them were still active after their 20th relevant run. */
  falsePositives: { activeAfter20: number; eligible: number };
  /** Per archived false positive: runs that injected or withheld it up to its archive, minus decayAfterRuns (0 = the spec's rule exactly). */
  fpArchiveDeviation: number[];
  /** Findings that were re-flags of a shown entry (primed by construction) and how many record counted as independent. */
  primed: { total: number; recordedIndependent: number };
  /** Independent discoveries of patterns that had an entry, and how many record counted as primed or missed (unmatched). */
  independent: { total: number; recordedPrimed: number; unmatched: number };
  /** Entries compounding created for a pattern that already had one, and entries it created in all. */
  duplicatesCreated: number;
  created: number;
  /** Regressed patterns independently re-found after they came back, and how many were restored in that very run. */
  regressions: { rediscovered: number; restoredAtFirst: number };
  /** Largest number of distinct entries one agent received in one run. */
  maxPerAgentRun: number;
  /** Of the (run, agent) pairs a true pattern's entry was selected for, the share withheld by holdout (knowledge the agent did not get). */
  trueWithheldShare: number;
  /** Of the (run, agent) pairs a false positive's entry was selected for, the share withheld (a false lead the agent did not get). */
  falseWithheldShare: number;
};

const runNumber = (id: string) => Number(id.replace(/^run-/, ""));

export function figures(outcome: SimOutcome, events: readonly LedgerEvent[]): Figures {
  const { world, runs } = outcome;
  const n = outcome.config.decayAfterRuns ?? 10;
  const patternOf = new Map(outcome.entries.map((e) => [e.id, e.pattern]));
  const kindOf = new Map(world.patterns.map((p) => [p.id, p.kind]));
  const archivedAt = new Map<string, number>();
  for (const trace of runs) for (const id of trace.archived) if (!archivedAt.has(id)) archivedAt.set(id, trace.run);
  const finalActive = new Set(outcome.entries.filter((e) => e.state === "active").map((e) => e.pattern));
  const count = (kind: string) => {
    const list = world.patterns.filter((p) => p.kind === kind);
    return { archived: list.filter((p) => archivedAt.has(p.id)).length, archivedAtEnd: list.filter((p) => !finalActive.has(p.id)).length, total: list.length };
  };

  // Selections: runs that injected or withheld a pattern's entries; pairs for the knowledge-cost shares.
  const selections = new Map<string, Set<number>>();
  const pairs = { true: { injected: 0, withheld: 0 }, false: { injected: 0, withheld: 0 } };
  const note = (entry: string, run: string, withheld: boolean) => {
    const pattern = patternOf.get(entry) ?? entry;
    const set = selections.get(pattern) ?? new Set<number>();
    set.add(runNumber(run));
    selections.set(pattern, set);
    const kind = kindOf.get(pattern);
    const bucket = kind === "false-positive" ? pairs.false : kind === "true-single" || kind === "true-multi" ? pairs.true : undefined;
    if (bucket) bucket[withheld ? "withheld" : "injected"] += 1;
  };
  for (const event of events) {
    if (event.type === "injected") for (const id of event.entries) note(id, event.run, false);
    if (event.type === "held-out") note(event.entry, event.run, true);
  }

  const falsePositives = { activeAfter20: 0, eligible: 0 };
  const fpArchiveDeviation: number[] = [];
  for (const pattern of world.patterns.filter((p) => p.kind === "false-positive")) {
    const relevantRuns = runs.filter((t) => t.relevant.includes(pattern.id)).map((t) => t.run);
    const archived = archivedAt.get(pattern.id);
    if (relevantRuns.length >= 20) {
      falsePositives.eligible += 1;
      if (archived === undefined || archived > relevantRuns[19]!) falsePositives.activeAfter20 += 1;
    }
    if (archived !== undefined) fpArchiveDeviation.push([...(selections.get(pattern.id) ?? [])].filter((r) => r <= archived).length - n);
  }

  const all = runs.flatMap((t) => t.findings);
  const primedFindings = all.filter((f) => f.truth === "primed");
  const independentFindings = all.filter((f) => f.truth === "independent" && f.hadEntry);
  const regressions = { rediscovered: 0, restoredAtFirst: 0 };
  for (const pattern of world.patterns.filter((p) => p.kind === "regression")) {
    const first = runs.find((t) => t.run >= pattern.liveFrom && t.findings.some((f) => f.pattern === pattern.id && f.truth === "independent"));
    if (!first) continue;
    regressions.rediscovered += 1;
    if (first.restored.includes(pattern.id)) regressions.restoredAtFirst += 1;
  }
  const share = (b: { injected: number; withheld: number }) => (b.injected + b.withheld ? b.withheld / (b.injected + b.withheld) : 0);
  return {
    trueSingle: count("true-single"),
    trueMulti: count("true-multi"),
    falsePositives,
    fpArchiveDeviation,
    primed: { total: primedFindings.length, recordedIndependent: primedFindings.filter((f) => typeof f.recorded === "object" && f.recorded.provenance === "independent").length },
    independent: {
      total: independentFindings.length,
      recordedPrimed: independentFindings.filter((f) => typeof f.recorded === "object" && f.recorded.provenance === "primed").length,
      unmatched: independentFindings.filter((f) => f.recorded === "unmatched").length,
    },
    duplicatesCreated: runs.flatMap((t) => t.created).filter((c) => c.duplicate).length,
    created: runs.flatMap((t) => t.created).length,
    regressions,
    maxPerAgentRun: auditInjectionCap(events, Number.MAX_SAFE_INTEGER).max,
    trueWithheldShare: share(pairs.true),
    falseWithheldShare: share(pairs.false),
  };
}
