/**
 * Decay (lifecycle rule 3, with holdout): where an entry stands in its decay window, and the plan of
 * which active entries to archive. Pure over the few fields it needs (id, path, state, lastConfirmed)
 * and the ledger views; `KnowledgeBase.decay` applies the plan.
 */
import { holdoutRuns, type CairnConfig } from "../config.js";
import type { EntryLedgerView } from "../ledger/index.js";
import type { DecayCandidate } from "../types/review.js";

/** The counters the limit is decided on (EntryLedgerView has them). */
export type LimitView = Pick<EntryLedgerView, "unconfirmedRuns" | "heldOutRuns">;

export type Limit =
  | { kind: "window" }
  /** One injected run from decay, with holdout budget left: withheld rather than injected (holdout.ts). */
  | { kind: "last-chance" }
  | { kind: "past-limit"; reason: string };

type DecayConfig = Pick<CairnConfig, "decayAfterRuns" | "holdout">;

/**
 * The one place that decides decay: an entry is past its limit when `decayAfterRuns` runs injected it
 * since its last independent confirmation (the spec's rule), or when holdout withheld it in all of its
 * budgeted runs without any agent finding it on its own (agents report it only when shown: primed-only).
 */
export function limitOf(view: LimitView, config: DecayConfig): Limit {
  const n = config.decayAfterRuns;
  const budget = holdoutRuns(config);
  if (view.unconfirmedRuns >= n) return { kind: "past-limit", reason: `injected in ${view.unconfirmedRuns} runs without an independent confirmation (limit ${n})` };
  if (budget > 0 && view.heldOutRuns >= budget) {
    return {
      kind: "past-limit",
      reason: `withheld in ${view.heldOutRuns} runs after ${view.unconfirmedRuns} injected runs and never found independently (primed-only)`,
    };
  }
  // Its last window run, once it was shown at all: with decayAfterRuns 1 the first run would otherwise be the last
  // chance, and an entry never injected was withheld and then archived as "primed-only".
  if (budget > 0 && view.unconfirmedRuns >= Math.max(1, n - 1)) return { kind: "last-chance" };
  return { kind: "window" };
}

/** The counter at which an active entry is "near decay" (`nearDecayRatio` of `decayAfterRuns`, rounded up): status, inject, diff and the report warn from here on. */
export function nearDecayAt(config: Pick<CairnConfig, "decayAfterRuns" | "nearDecayRatio">): number {
  return Math.ceil(config.decayAfterRuns * config.nearDecayRatio);
}

/** What decay needs of an entry: the catalogue fields, not the parsed file. */
export type DecayEntry = { id: string; path: string; state: "active" | "archived"; frontmatter: { lastConfirmed?: unknown } };

export type { DecayCandidate } from "../types/review.js";

export type PlanDecayOptions = {
  /** Ids independently confirmed by a plan not yet applied (a dry-run `record`): they do not decay. Default none. */
  confirmed?: ReadonlySet<string>;
};

export function planDecay(entries: readonly DecayEntry[], views: Map<string, EntryLedgerView>, config: DecayConfig, options: PlanDecayOptions = {}): DecayCandidate[] {
  const out: DecayCandidate[] = [];
  for (const entry of entries) {
    if (entry.state !== "active" || options.confirmed?.has(entry.id)) continue;
    const view = views.get(entry.id) ?? { unconfirmedRuns: 0, heldOutRuns: 0 };
    const limit = limitOf(view, config);
    if (limit.kind !== "past-limit") continue;
    const lastConfirmed = typeof entry.frontmatter.lastConfirmed === "string" ? entry.frontmatter.lastConfirmed : null;
    out.push({
      id: entry.id,
      path: entry.path,
      unconfirmedRuns: view.unconfirmedRuns,
      heldOutRuns: view.heldOutRuns,
      lastConfirmed,
      reason: `decayed: ${limit.reason} since ${lastConfirmed ?? "it was written"}`,
    });
  }
  return out.sort((a, b) => a.id.localeCompare(b.id));
}
