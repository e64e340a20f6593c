/** A ledger as consumers take it: its events, or its folded state (state.ts). */
import type { LedgerEvent } from "./events.js";
import { compareEvents, isSorted } from "./order.js";
import { LedgerState } from "./state.js";

/** Fold `events` (any order: a copy is sorted by time then eventId, stable). Not de-duplicated: `readLedger` does that. */
export function foldEvents(events: readonly LedgerEvent[]): LedgerState {
  const state = new LedgerState();
  const ordered = isSorted(events) ? events : [...events].sort(compareEvents);
  for (const event of ordered) state.apply(event);
  return state;
}

/** A ledger as consumers accept it: its events (folded on demand, once per array) or its folded state. */
export type LedgerSource = readonly LedgerEvent[] | LedgerState;

const folded = new WeakMap<readonly LedgerEvent[], LedgerState>();

/** The state of `source`: itself, or the fold of an event list (cached per array: treat the array as read-only). */
export function ledgerState(source: LedgerSource): LedgerState {
  if (source instanceof LedgerState) return source;
  let state = folded.get(source);
  if (state === undefined) {
    state = foldEvents(source);
    folded.set(source, state);
  }
  return state;
}
