/**
 * The holdout step of `inject`: walk the ranked candidates and decide, for each, inject / withhold /
 * skip (holdout.ts), until the agent's free slots are filled. A withheld entry frees its slot for the
 * next candidate, so holdout never pushes an agent over the cap; candidates past the filled slots are
 * only looked at for withholding. Pure: the caller records the events.
 */
import type { CairnConfig } from "../config.js";
import type { Entry } from "../entry/types.js";
import type { EntryLedgerView, LedgerSource, RunRef } from "../ledger/index.js";
import { confirmationInstant, heldOutForRun, injectionsForRun } from "../ledger/index.js";
import { decideHoldout } from "./holdout.js";
import type { Withheld } from "../types/inject.js";

export type { Withheld } from "../types/inject.js";

export type Selection<T extends EntryInfo = Entry> = {
  /** Entries to inject, in rank order, at most `slots`. */
  inject: T[];
  /** Withheld (holdout) or skipped (past the decay limit) candidates, for the result and `--dry-run`. */
  withheld: Withheld[];
  /** The withheld ones to record as `held-out` events. */
  events: Withheld[];
  /** Hand edits of `lastConfirmed` to today that the ledger does not explain yet (recorded as `hand-confirmed`). */
  handConfirmed: Array<{ entry: string; date: string }>;
};

/** What holdout reads of a candidate (the catalogue record has it without parsing the file). */
export type EntryInfo = Pick<Entry, "id" | "frontmatter">;

export type SelectInput<T extends EntryInfo = Entry> = {
  candidates: readonly T[];
  slots: number;
  views: Map<string, EntryLedgerView>;
  events: LedgerSource;
  run: RunRef;
  config: Pick<CairnConfig, "decayAfterRuns" | "holdout">;
  today: string;
  /** Candidates the review's change does not touch (search's `awayFromChange`): an entry due for holdout sits out such a review. */
  awayFromChange?: ReadonlySet<string>;
};

export function selectWithHoldout<T extends EntryInfo>(input: SelectInput<T>): Selection<T> {
  const selection: Selection<T> = { inject: [], withheld: [], events: [], handConfirmed: [] };
  const injectedInRun = new Set(injectionsForRun(input.events, input.run));
  const heldInRun = new Set(heldOutForRun(input.events, input.run));
  const endOfToday = confirmationInstant(input.today);
  for (const entry of input.candidates) {
    const full = selection.inject.length >= input.slots;
    const view = input.views.get(entry.id);
    const decision = decideHoldout(
      {
        unconfirmedRuns: view?.unconfirmedRuns ?? 0,
        heldOutRuns: view?.heldOutRuns ?? 0,
        injectedThisRun: injectedInRun.has(entry.id),
        heldOutThisRun: heldInRun.has(entry.id),
        awayFromChange: input.awayFromChange?.has(entry.id) ?? false,
      },
      input.config,
    );
    // With the slots filled, the agent gets nothing more; but an entry due for holdout that is relevant here (above the
    // floor) and not shown is still an independent test of it: record the withholding, so a crowded agent does not
    // stretch a false positive's last chance.
    if (full && decision.kind !== "hold-out") continue;
    if (decision.kind === "skip") {
      selection.withheld.push({ id: entry.id, reason: decision.reason });
      continue;
    }
    const date = entry.frontmatter.lastConfirmed;
    if (typeof date === "string" && date.trim() === input.today && view?.lastConfirmedAt === endOfToday) {
      selection.handConfirmed.push({ entry: entry.id, date: input.today });
    }
    if (decision.kind === "hold-out") {
      selection.withheld.push({ id: entry.id, reason: decision.reason });
      selection.events.push({ id: entry.id, reason: decision.reason });
      continue;
    }
    selection.inject.push(entry);
  }
  return selection;
}
