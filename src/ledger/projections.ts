/** Views over the folded ledger plus the frontmatter: decay counters (lifecycle rule 3), held-out runs, confirmation counts. */
import { frontmatterInstant } from "./clock.js";
import type { LedgerEvent } from "./events.js";
import { foldEvents } from "./source.js";
import type { EntryFold, LedgerState } from "./state.js";

export type EntryLedgerView = {
  entry: string;
  /** Distinct runs that injected the entry (into any agent) after its last confirmation. */
  unconfirmedRuns: number;
  /** Distinct runs after its last confirmation that withheld the entry (holdout) without injecting it into any agent. */
  heldOutRuns: number;
  /** The last confirmation instant used for the counter (ISO), if any. */
  lastConfirmedAt?: string;
  /** `confirmed` events by provenance, over the whole ledger (a repeated (run, agent, finding) counts once). */
  confirmations: { independent: number; primed: number };
  /** Over the whole ledger: (run, agent) pairs that had the entry withheld, and how many of them found it independently. */
  holdout: { withheld: number; found: number };
  /** Time of the latest injection (ISO). */
  lastInjected?: string;
  /** Run of the latest injection. */
  lastInjectedRun?: string;
  /** Total distinct runs that ever injected the entry. */
  injectedRuns: number;
};

/** Per-entry information from the frontmatter that the projection needs. */
export type EntryConfirmationInfo = { id: string; lastConfirmed?: string };

export type ProjectOptions = {
  /** Today (UTC, YYYY-MM-DD): a `lastConfirmed` after it is ignored (a future date grants no immunity). Default: no such check. */
  today?: string;
};

/**
 * The views of `entries` (lifecycle rule 3) from a folded ledger. Every listed entry gets a view
 * (zeros if the ledger never mentions it; the first listing of an id wins). Runs are told apart by
 * id and origin. The frontmatter date is combined here, not in the fold: the last confirmation is
 * the later of the ledger's last reset and what the date adds to it (clock.ts).
 */
export function projectState(state: LedgerState, entries: readonly EntryConfirmationInfo[], options: ProjectOptions = {}): Map<string, EntryLedgerView> {
  const result = new Map<string, EntryLedgerView>();
  for (const { id, lastConfirmed } of entries) {
    if (!result.has(id)) result.set(id, viewOf(state, id, state.entry(id), lastConfirmed, options.today));
  }
  return result;
}

/** Project the ledger's events onto `entries`; events may come in any order (they are folded in time order). */
export function projectLedger(events: readonly LedgerEvent[], entries: readonly EntryConfirmationInfo[], options: ProjectOptions = {}): Map<string, EntryLedgerView> {
  return projectState(foldEvents(events), entries, options);
}

function viewOf(state: LedgerState, id: string, fold: Readonly<EntryFold> | undefined, lastConfirmed: string | undefined, today: string | undefined): EntryLedgerView {
  const reset = fold?.lastReset;
  const date = frontmatterInstant(lastConfirmed, reset, today);
  const since = date !== undefined && (reset === undefined || date > reset) ? date : reset;
  const view: EntryLedgerView = {
    entry: id,
    unconfirmedRuns: 0,
    heldOutRuns: 0,
    confirmations: { independent: fold?.independent ?? 0, primed: fold?.primed ?? 0 },
    holdout: { withheld: fold?.withheld ?? 0, found: fold?.found ?? 0 },
    injectedRuns: fold?.injectedRuns ?? 0,
  };
  if (since !== undefined) view.lastConfirmedAt = since;
  if (fold === undefined) return view;
  if (since === reset) {
    // The usual case: the last confirmation is the ledger's, and the fold counted the runs after it.
    view.unconfirmedRuns = fold.afterRuns;
    view.heldOutRuns = fold.heldOnlyRuns;
  } else {
    // A hand-edited date later than the ledger's last reset: count the runs after it.
    const runs = state.runsAfterReset(fold as EntryFold);
    const after = (time: string | undefined) => time !== undefined && (since === undefined || time > since);
    for (const time of runs.injected.values()) if (after(time)) view.unconfirmedRuns += 1;
    // A run that withheld the entry from one agent but injected it into another already counts as injected.
    for (const [run, time] of runs.held) if (after(time) && !after(runs.injected.get(run))) view.heldOutRuns += 1;
  }
  if (fold.lastInjected !== undefined) {
    view.lastInjected = fold.lastInjected;
    view.lastInjectedRun = fold.lastInjectedRun as string;
  }
  return view;
}
