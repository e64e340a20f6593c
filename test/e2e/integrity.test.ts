/**
 * A smaller seeded run of `npm run bench -- integrity` (bench/lib/integrity/): 9 patterns with hidden
 * truth, 4 agents, 18 runs, decayAfterRuns 4, real files, real git, the library API. The full matrix
 * and the README table come from the bench; this keeps the guarantees in the test suite.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { figures, type Figures } from "../../bench/lib/integrity/figures.js";
import { simulate, type SimConfig } from "../../bench/lib/integrity/sim.js";

const SMALL: Omit<SimConfig, "holdout" | "runsPerDay"> = {
  seed: 3,
  p: 0.4,
  q: 0.6,
  runs: 18,
  decayAfterRuns: 4,
  counts: { "true-single": 3, "true-multi": 1, "false-positive": 2, fixed: 1, regression: 1, "mid-way": 1 },
};

const roots: string[] = [];
async function run(config: SimConfig): Promise<Figures> {
  const root = await mkdtemp(path.join(os.tmpdir(), "cairn-integrity-test-"));
  roots.push(root);
  const outcome = await simulate(root, config);
  return figures(outcome, (await outcome.kb.ledger.read()).events);
}

let literal: Figures;
let holdout: Figures;
let manyADay: Figures;
beforeAll(async () => {
  [literal, holdout, manyADay] = await Promise.all([
    run({ ...SMALL, holdout: "off", runsPerDay: 1 }),
    run({ ...SMALL, holdout: 0.8, runsPerDay: 1 }),
    run({ ...SMALL, holdout: 0.8, runsPerDay: 40 }),
  ]);
}, 120_000);
afterAll(async () => {
  await Promise.all(roots.map((root) => rm(root, { recursive: true, force: true })));
});

describe("integrity simulation (small)", () => {
  it("spec-literal starves true patterns only one agent can find; holdout keeps them", () => {
    expect(literal.trueSingle.archived).toBe(literal.trueSingle.total);
    expect(holdout.trueSingle.archived).toBe(0);
  });

  it("false positives decay: exactly at the rule with holdout off, within decayAfterRuns - 1 + holdout runs at the default", () => {
    expect(literal.fpArchiveDeviation.length).toBeGreaterThan(0);
    expect(literal.fpArchiveDeviation.every((d) => d === 0)).toBe(true);
    // decayAfterRuns 4, holdout 0.8 → 4 withheld runs after 3 injected: 3 more than the rule.
    expect(holdout.fpArchiveDeviation.length).toBeGreaterThan(0);
    expect(holdout.fpArchiveDeviation.every((d) => d === 3)).toBe(true);
    expect(holdout.falsePositives.activeAfter20).toBe(0);
  });

  it("never counts a primed re-flag as independent, never creates a duplicate, restores regressions, keeps the cap", () => {
    for (const f of [literal, holdout]) {
      expect(f.primed.total).toBeGreaterThan(20);
      expect(f.primed.recordedIndependent).toBe(0);
      expect(f.duplicatesCreated).toBe(0);
      expect(f.regressions.rediscovered).toBeGreaterThan(0);
      expect(f.regressions.restoredAtFirst).toBe(f.regressions.rediscovered);
      expect(f.maxPerAgentRun).toBeLessThanOrEqual(5);
    }
  });

  it("gives the same figures at 1 and at 40 runs a day", () => {
    expect(manyADay).toEqual(holdout);
  });
});
