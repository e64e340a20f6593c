/** How a ledger effect reads in a diagnostic and in the PR comment. Pure and light (markdown.ts imports it). */
import type { LedgerEffect } from "./types.js";

/** `ctx-cancel: decay 1/10 → 11/10 (past the limit: …) by 10 new events (10 injected) from 10 runs (ci-1, ci-2, ci-3 and 7 more)` */
export function pushedText(e: LedgerEffect): string {
  return `${e.id}: ${decayText(e)} (past the limit: inject withholds it and the next record or decay archives it) by ${eventsText(e)}`;
}

/** `decay 1/10 → 11/10`, or `decay 0/10` when the counter did not move. */
export function decayText(e: LedgerEffect): string {
  const now = `${e.after.unconfirmedRuns}/${e.decayAfterRuns}`;
  return e.before.unconfirmedRuns === e.after.unconfirmedRuns ? `decay ${now}` : `decay ${e.before.unconfirmedRuns}/${e.decayAfterRuns} → ${now}`;
}

/** `10 new events (10 injected) from 10 runs (ci-1, ci-2, ci-3 and 7 more)` */
export function eventsText(e: LedgerEffect): string {
  const total = Object.values(e.events).reduce((a, b) => a + b, 0);
  const kinds = Object.entries(e.events).map(([type, n]) => `${n} ${type}`).join(", ");
  const more = e.runs > e.sampleRuns.length ? ` and ${e.runs - e.sampleRuns.length} more` : "";
  const runs = e.runs ? ` from ${e.runs} run${e.runs === 1 ? "" : "s"} (${e.sampleRuns.join(", ")}${more})` : "";
  return `${total} new event${total === 1 ? "" : "s"} (${kinds})${runs}`;
}
