/**
 * Verification records in the ledger (`verified` events) as a signal. A failed verification — the
 * pattern an entry warns about is gone — flags the entry for human review: a warning in `status`
 * and in `inject` until the entry is confirmed again, its Verify section changes, or a later
 * verification passes. It does not archive the entry by itself (decay stays "runs without an
 * independent confirmation"; see README "Verification steps that run").
 */
import { createHash } from "node:crypto";
import type { Entry } from "../entry/types.js";
import type { LedgerEvent, VerifiedEvent } from "../ledger/events.js";

/** sha256 (first 16 hex) of an entry's Verify section: a verification applies to the steps it ran. */
export function verifyHashOf(entry: Pick<Entry, "verify"> | { verifyHash: string }): string {
  if ("verifyHash" in entry) return entry.verifyHash; // a catalogue record keeps it
  return createHash("sha256").update(entry.verify.text).digest("hex").slice(0, 16);
}

/** Per entry id: the latest `verified` event and the time of the latest confirmation after it, if any. */
export type VerificationState = { latest: VerifiedEvent; confirmedAfter: boolean };

export function verificationStates(events: readonly LedgerEvent[]): Map<string, VerificationState> {
  const out = new Map<string, VerificationState>();
  for (const event of events) {
    if (event.type === "verified") out.set(event.entry, { latest: event, confirmedAfter: false });
    else if (event.type === "manual-confirmed" || event.type === "restored" || (event.type === "confirmed" && event.provenance === "independent")) {
      const state = out.get(event.entry);
      if (state) state.confirmedAfter = true;
    }
  }
  return out;
}

/** The warning for an entry whose latest verification failed, or undefined. */
export function verificationWarning(entry: Pick<Entry, "verify"> | { verifyHash: string }, state: VerificationState | undefined): string | undefined {
  if (!state || state.confirmedAfter || state.latest.result !== "failed" || state.latest.verifyHash !== verifyHashOf(entry)) return undefined;
  const failed = state.latest.steps.find((s) => s.result === "failed");
  const what = failed?.pattern ? `\`${failed.pattern}\` no longer matches in ${(failed.paths ?? ["the repository"]).join(", ")}` : "a verify step no longer matches";
  return `verification failed on ${state.latest.time.slice(0, 10)}: ${what} — likely fixed; re-check, then confirm or retract the entry`;
}
