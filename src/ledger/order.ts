/** The order the ledger is read and folded in: time, then eventId. */
import type { LedgerEvent } from "./events.js";

/** (time, eventId) order: the order `readLedger` returns and the fold requires. */
export function compareEvents(a: Pick<LedgerEvent, "time" | "eventId">, b: Pick<LedgerEvent, "time" | "eventId">): number {
  if (a.time !== b.time) return a.time < b.time ? -1 : 1;
  if (a.eventId !== b.eventId) return a.eventId < b.eventId ? -1 : 1;
  return 0;
}

/** True when `events` are in (time, eventId) order. */
export function isSorted(events: readonly LedgerEvent[]): boolean {
  for (let i = 1; i < events.length; i++) if (compareEvents(events[i - 1] as LedgerEvent, events[i] as LedgerEvent) > 0) return false;
  return true;
}
