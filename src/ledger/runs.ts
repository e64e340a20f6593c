/**
 * Runs in the ledger: what one agent was given (or had withheld) in one run. A run is its id plus
 * its origin (run-ref.ts). Agent names compare with `agentKey` (case- and whitespace-insensitive).
 * Each function takes the events or the folded state (state.ts), which answers them.
 */
import { ledgerState, type LedgerSource } from "./source.js";
import type { RunRecord, RunRef } from "./run-ref.js";

export { runKey, type RunRecord, type RunRef, sameRun } from "./run-ref.js";

/** Entry ids injected in `run` (into `agent`, or into any agent when omitted), unique, in first-injection order. */
export function injectionsForRun(ledger: LedgerSource, run: string | RunRef, agent?: string): string[] {
  return ledgerState(ledger).injectionsForRun(run, agent);
}

/** Entry ids the holdout policy withheld in `run` (from `agent`, or from any agent when omitted). */
export function heldOutForRun(ledger: LedgerSource, run: RunRef, agent?: string): string[] {
  return ledgerState(ledger).heldOutForRun(run, agent);
}

/** True when `entryId` was injected into `agent` in `run`: a finding by that agent matching it is primed. */
export function wasInjected(ledger: LedgerSource, run: string | RunRef, agent: string, entryId: string): boolean {
  return ledgerState(ledger).wasInjected(run, agent, entryId);
}

/** What the ledger knows about one run: whether any inject call was recorded, and for which agents (by agentKey). */
export function runRecord(ledger: LedgerSource, run: RunRef): RunRecord {
  return ledgerState(ledger).runRecord(run);
}

/** Distinct run ids with a recorded injection, most recent first (for "did you mean" on a mistyped run id). */
export function knownRuns(ledger: LedgerSource): string[] {
  return ledgerState(ledger).knownRuns();
}
