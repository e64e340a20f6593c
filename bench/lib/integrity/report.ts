/** Issue 7's goal table and the trade-off table, from the figures of many simulations. */
import type { GoalRow } from "../report.js";
import type { Figures } from "./figures.js";
import type { SimConfig } from "./sim.js";

export type SimResult = { config: SimConfig; figures: Figures; ms: number };

const pct = (part: number, whole: number) => (whole ? `${((100 * part) / whole).toFixed(1)}%` : "n/a");
const sum = <T>(list: readonly T[], f: (x: T) => number) => list.reduce((s, x) => s + f(x), 0);
const label = (holdout: SimConfig["holdout"]) => (holdout === "off" ? "off" : String(holdout));

/** Figures that must not depend on the clock: everything but timings. */
function signature(f: Figures): string {
  return JSON.stringify(f);
}

export function goalRows(results: readonly SimResult[], defaultHoldout: number, decayAfterRuns: number): GoalRow[] {
  const at = (holdout: SimConfig["holdout"]) => results.filter((r) => r.config.holdout === holdout);
  const def = at(defaultHoldout);
  const off = at("off");
  const rows: GoalRow[] = [];
  const archivedShare = (list: readonly SimResult[], p: number, kind: "trueSingle" | "trueMulti") => {
    const chosen = list.filter((r) => r.config.p === p);
    return { part: sum(chosen, (r) => r.figures[kind].archived), whole: sum(chosen, (r) => r.figures[kind].total) };
  };
  for (const p of [0.4, 0.2]) {
    const d = archivedShare(def, p, "trueSingle");
    const o = archivedShare(off, p, "trueSingle");
    rows.push({
      metric: `true patterns only one agent finds, wrongly archived by run 40 (p = ${p})`,
      goal: p === 0.4 ? "≤ 10% (spec-literal: ~100%)" : "— (report)",
      measured: `${pct(d.part, d.whole)} (${d.part}/${d.whole})`,
      baseline: `holdout off: ${pct(o.part, o.whole)} (${o.part}/${o.whole})`,
      pass: p === 0.4 ? d.whole > 0 && d.part / d.whole <= 0.1 : null,
    });
  }
  {
    const d = { part: sum(def, (r) => r.figures.trueMulti.archived), whole: sum(def, (r) => r.figures.trueMulti.total) };
    const o = { part: sum(off, (r) => r.figures.trueMulti.archived), whole: sum(off, (r) => r.figures.trueMulti.total) };
    rows.push({ metric: "true patterns several agents find, wrongly archived by run 40 (p = 0.2 and 0.4)", goal: "— (report)", measured: `${pct(d.part, d.whole)} (${d.part}/${d.whole})`, baseline: `holdout off: ${pct(o.part, o.whole)}`, pass: null });
  }
  const fp = (list: readonly SimResult[]) => ({ active: sum(list, (r) => r.figures.falsePositives.activeAfter20), eligible: sum(list, (r) => r.figures.falsePositives.eligible) });
  const fd = fp(def);
  const fo = fp(off);
  rows.push({
    metric: "false positives still active after 20 runs in which they were relevant",
    goal: "0",
    measured: `${fd.active} of ${fd.eligible}`,
    baseline: `holdout off: ${fo.active} of ${fo.eligible}`,
    pass: fd.active === 0,
  });
  const deviations = (list: readonly SimResult[]) => list.flatMap((r) => r.figures.fpArchiveDeviation);
  const bound = Math.ceil(Number((defaultHoldout * decayAfterRuns).toFixed(6))) - 1;
  const dd = deviations(def);
  const od = deviations(off);
  rows.push({
    metric: "archive run of a false positive vs the rule (runs that injected or withheld it, minus decayAfterRuns)",
    goal: `exact at holdout off; ≤ ${bound} later at the default (the documented bound)`,
    measured: `default: ${Math.min(...dd)}…${Math.max(...dd)} over ${dd.length} archives`,
    baseline: `holdout off: ${Math.min(...od)}…${Math.max(...od)} over ${od.length}`,
    pass: od.every((d) => d === 0) && dd.every((d) => d >= 0 && d <= bound),
  });
  const both = [...def, ...off];
  const primed = { bad: sum(both, (r) => r.figures.primed.recordedIndependent), total: sum(both, (r) => r.figures.primed.total) };
  rows.push({ metric: "primed re-flags recorded as independent", goal: "0", measured: `${primed.bad} of ${primed.total}`, baseline: "half of them paraphrased, a quarter with the agent's name spelled differently", pass: primed.bad === 0 });
  const found = { missed: sum(both, (r) => r.figures.independent.unmatched), primed: sum(both, (r) => r.figures.independent.recordedPrimed), total: sum(both, (r) => r.figures.independent.total) };
  rows.push({
    metric: "independent re-discoveries of a pattern with an entry that record missed (unmatched) or called primed",
    goal: "— (report)",
    measured: `${found.missed} missed, ${found.primed} primed, of ${found.total}`,
    baseline: "half of them paraphrased; matched by words and by the place they cite",
    pass: null,
  });
  const dupes = sum(both, (r) => r.figures.duplicatesCreated);
  rows.push({ metric: "duplicate entries created", goal: "0", measured: String(dupes), baseline: `${sum(both, (r) => r.figures.created)} entries compounded in all (patterns appearing mid-way)`, pass: dupes === 0 });
  const reg = { restored: sum(both, (r) => r.figures.regressions.restoredAtFirst), found: sum(both, (r) => r.figures.regressions.rediscovered) };
  rows.push({ metric: "regressed patterns restored at their first independent re-discovery", goal: "100%", measured: `${pct(reg.restored, reg.found)} (${reg.restored}/${reg.found})`, pass: reg.found > 0 && reg.restored === reg.found });
  const max = Math.max(...both.map((r) => r.figures.maxPerAgentRun));
  rows.push({ metric: "entries per agent per run", goal: "≤ 5, always", measured: `max ${max}`, pass: max <= 5 });
  const groups = new Map<string, SimResult[]>();
  for (const r of results) {
    const key = JSON.stringify({ ...r.config, runsPerDay: 0 });
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  const compared = [...groups.values()].filter((g) => new Set(g.map((r) => r.config.runsPerDay)).size > 1);
  const differing = compared.filter((g) => new Set(g.map((r) => signature(r.figures))).size > 1).length;
  rows.push({ metric: "same figures at 1, 4 and 40 runs a day", goal: "equal within noise", measured: `${differing} of ${compared.length} configurations differ`, baseline: "every figure of every simulation compared", pass: compared.length > 0 && differing === 0 });
  return rows;
}

/** One row per holdout setting (1 run a day, all seeds and q): what holdout costs and buys. */
export function tradeoffTable(results: readonly SimResult[]): Array<Record<string, string>> {
  const settings = [...new Set(results.map((r) => label(r.config.holdout)))].sort((a, b) => (a === "off" ? -1 : b === "off" ? 1 : Number(a) - Number(b)));
  return settings.map((setting) => {
    const list = results.filter((r) => label(r.config.holdout) === setting && r.config.runsPerDay === 1);
    const single = (p: number) => {
      const chosen = list.filter((r) => r.config.p === p);
      return pct(sum(chosen, (r) => r.figures.trueSingle.archived), sum(chosen, (r) => r.figures.trueSingle.total));
    };
    const dev = list.flatMap((r) => r.figures.fpArchiveDeviation);
    const mean = (f: (r: SimResult) => number) => (list.length ? `${((100 * sum(list, f)) / list.length).toFixed(1)}%` : "n/a");
    return {
      holdout: setting,
      "single-agent true patterns archived (p 0.4)": single(0.4),
      "(p 0.2)": single(0.2),
      "false positive archived, runs after the rule": dev.length ? `${Math.min(...dev)}–${Math.max(...dev)}` : "n/a",
      "false positives active after 20 relevant runs": `${sum(list, (r) => r.figures.falsePositives.activeAfter20)}/${sum(list, (r) => r.figures.falsePositives.eligible)}`,
      "true-pattern slots withheld": mean((r) => r.figures.trueWithheldShare),
      "false-positive slots withheld": mean((r) => r.figures.falseWithheldShare),
      simulations: String(list.length),
    };
  });
}

/** Per holdout, p, q and runs a day (summed over seeds). */
export function matrixTable(results: readonly SimResult[]): Array<Record<string, string>> {
  const keys = [...new Set(results.map((r) => `${label(r.config.holdout)}|${r.config.p}|${r.config.q}|${r.config.runsPerDay}`))];
  return keys.map((key) => {
    const [holdout, p, q, perDay] = key.split("|");
    const list = results.filter((r) => `${label(r.config.holdout)}|${r.config.p}|${r.config.q}|${r.config.runsPerDay}` === key);
    const fp = { a: sum(list, (r) => r.figures.falsePositives.activeAfter20), e: sum(list, (r) => r.figures.falsePositives.eligible) };
    return {
      holdout: holdout!,
      p: p!,
      q: q!,
      "runs/day": perDay!,
      "single archived": `${sum(list, (r) => r.figures.trueSingle.archived)}/${sum(list, (r) => r.figures.trueSingle.total)}`,
      "multi archived": `${sum(list, (r) => r.figures.trueMulti.archived)}/${sum(list, (r) => r.figures.trueMulti.total)}`,
      "FP active after 20": `${fp.a}/${fp.e}`,
      "primed → independent": String(sum(list, (r) => r.figures.primed.recordedIndependent)),
      duplicates: String(sum(list, (r) => r.figures.duplicatesCreated)),
      "regressions restored": `${sum(list, (r) => r.figures.regressions.restoredAtFirst)}/${sum(list, (r) => r.figures.regressions.rediscovered)}`,
      "max/agent/run": String(Math.max(...list.map((r) => r.figures.maxPerAgentRun))),
    };
  });
}
