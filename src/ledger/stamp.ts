/**
 * The time a new event is stamped with. Events fold in time order, so a clock stepped back (NTP after a VM resumed,
 * a host that had run ahead) would put a confirmation before the injections it follows, and they would count against
 * it: when the clock is behind the ledger's latest event, a new event goes 2 ms after that event (an injection stamps
 * the hand confirmation it saw 1 ms before itself, still after it).
 */
import type { LedgerEvent } from "./events.js";

/**
 * How far behind the ledger's latest event the clock may be and still be followed. A ledger line dated up to a day
 * ahead is folded (later ones are skipped), and one a pull request dated hours ahead must not drag every later event
 * of this clone into the future.
 */
export const MAX_CLOCK_STEP_BACK_MS = 6 * 3_600_000;

/** `now`, or 2 ms after `last` when `now` is behind it by at most MAX_CLOCK_STEP_BACK_MS. */
export function stampAfter(now: Date, last: Pick<LedgerEvent, "time"> | undefined): Date {
  const ahead = last ? Date.parse(last.time) - now.getTime() : Number.NaN;
  return ahead > 0 && ahead <= MAX_CLOCK_STEP_BACK_MS ? new Date(now.getTime() + ahead + 2) : now;
}
