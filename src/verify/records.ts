/**
 * Verification records in the ledger (`verified` events) as a signal. A failed verification — the
 * pattern an entry warns about is gone — flags the entry for human review: a warning in `status`
 * and in `inject` until the entry is confirmed again, its Verify section changes, or a later
 * verification passes. It does not archive the entry by itself (decay stays "runs without an
 * independent confirmation"; see README "Verification steps that run").
 */
import { createHash } from "node:crypto";
import type { Entry } from "../entry/types.js";
import { ledgerState, type LedgerSource } from "../ledger/source.js";
import { planStep } from "./steps.js";
import type { VerificationState } from "../ledger/state.js";

/** sha256 (first 16 hex) of an entry's Verify section: a verification applies to the steps it ran. */
export function verifyHashOf(entry: Pick<Entry, "verify"> | { verifyHash: string }): string {
  if ("verifyHash" in entry) return entry.verifyHash; // a catalogue record keeps it
  return createHash("sha256").update(entry.verify.text).digest("hex").slice(0, 16);
}

export type { VerificationState } from "../ledger/state.js";

/** Per entry id: the latest `verified` event and whether a confirmation (independent, manual, restore) came after it. */
export function verificationStates(events: LedgerSource): Pick<ReadonlyMap<string, VerificationState>, "get"> {
  const state = ledgerState(events);
  // A lookup, not a map of every entry: inject asks about the few it picks (the rest stay encoded in the snapshot).
  return { get: (id) => state.entry(id)?.verification };
}

/**
 * The warning for an entry whose latest verification failed, or undefined. With the entry at hand (`inject`, which
 * puts it into prompts), what it quotes — the pattern and where it was searched — is read again from the entry's own
 * Verify step, which the rules checked: the ledger is a file a pull request can edit, and the event says only which
 * step failed. A catalogue record (`status`, for people) has no steps: the event's own pattern is quoted.
 */
export function verificationWarning(entry: Pick<Entry, "verify"> | { verifyHash: string }, state: VerificationState | undefined): string | undefined {
  if (!state || state.confirmedAfter || state.latest.result !== "failed" || state.latest.verifyHash !== verifyHashOf(entry)) return undefined;
  const failed = state.latest.steps.find((s) => s.result === "failed");
  const where = (paths: readonly string[] | undefined) => (paths?.length ? paths.join(", ") : "the repository");
  let what = "a verify step no longer matches";
  if (failed && "verify" in entry) {
    const step = entry.verify.steps[failed.step];
    const plan = step === undefined ? undefined : planStep(step);
    if (plan?.kind === "grep" && plan.patterns.length) what = `\`${plan.patterns.join("` or `")}\` no longer matches in ${where(plan.paths)}`;
    else if (step !== undefined) what = `verify step ${failed.step + 1} no longer matches`;
  } else if (failed?.pattern) {
    what = `\`${failed.pattern}\` no longer matches in ${where(failed.paths)}`;
  }
  return `verification failed on ${state.latest.time.slice(0, 10)}: ${what} — likely fixed; re-check, then confirm or retract the entry`;
}
