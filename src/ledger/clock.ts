/**
 * The decay clock (lifecycle rule 3, as amended by issue 7): runs are counted after an entry's last
 * confirmation instant. Confirmations the tool makes are ledger events with exact times; only a
 * hand-edited `lastConfirmed` is a bare date, and this module decides what instant it stands for.
 */
import type { LedgerEvent } from "./events.js";

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The instant a frontmatter `lastConfirmed` stands for on its own: a date counts until the end of
 * that day UTC (`2026-02-12` → `2026-02-12T23:59:59.999Z`); a full timestamp counts as itself.
 * Undefined for a missing or unparseable value. (`frontmatterInstant` adds the ledger's say.)
 */
export function confirmationInstant(lastConfirmed: unknown): string | undefined {
  if (lastConfirmed instanceof Date) {
    return Number.isNaN(lastConfirmed.getTime()) ? undefined : endOfDay(lastConfirmed.toISOString().slice(0, 10));
  }
  if (typeof lastConfirmed !== "string") return undefined;
  const value = lastConfirmed.trim();
  if (DATE_ONLY.test(value)) return endOfDay(value);
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

/** End-of-day instants by date: a knowledge base has a few hundred distinct dates over thousands of entries. */
const endsOfDay = new Map<string, string | undefined>();

function endOfDay(date: string): string | undefined {
  if (endsOfDay.has(date)) return endsOfDay.get(date);
  const ms = Date.parse(`${date}T23:59:59.999Z`);
  const iso = Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
  // Date.parse rolls 2026-02-30 over to March; such a date is invalid, not a different day.
  const end = iso?.startsWith(date) ? iso : undefined;
  endsOfDay.set(date, end);
  return end;
}

/**
 * What a frontmatter `lastConfirmed` adds to the ledger's last reset (`lastReset`, the time of the
 * entry's latest counter-resetting event, if any):
 *
 * - a date in the future (after `today`, when given) adds nothing: it grants no immunity;
 * - a date on or before the day of `lastReset` adds nothing: the tool wrote it with that event,
 *   whose exact time is the confirmation (so many runs on one day count exactly);
 * - any other date is a hand edit the ledger does not explain; it counts until the end of its day.
 *   `inject` writes a `hand-confirmed` event when it first meets such a date on the day itself,
 *   which turns it into an exact instant; the end-of-day reading only remains for dates that
 *   arrived without one (a merge, a ledger older than this rule): at most one day of runs is
 *   then read as coming before the confirmation.
 */
export function frontmatterInstant(lastConfirmed: unknown, lastReset: string | undefined, today?: string): string | undefined {
  const instant = confirmationInstant(lastConfirmed);
  if (instant === undefined) return undefined;
  const day = instant.slice(0, 10);
  if (today !== undefined && day > today) return undefined;
  if (lastReset !== undefined && day <= lastReset.slice(0, 10)) return undefined;
  return instant;
}

/** Events that reset the decay counter: confirmations (independent, manual, by hand), restores, creation and compounding. */
export function resetsCounter(event: LedgerEvent): boolean {
  switch (event.type) {
    case "confirmed":
      return event.provenance === "independent";
    case "manual-confirmed":
    case "hand-confirmed":
    case "restored":
    case "compounded":
    case "created":
      return true;
    default:
      return false;
  }
}

/** True when `lastConfirmed` is a date (no time) that neither the ledger explains nor lies in the future: a hand edit `inject` should record. */
export function isUnexplainedDate(lastConfirmed: unknown, lastReset: string | undefined, today: string): boolean {
  return typeof lastConfirmed === "string" && DATE_ONLY.test(lastConfirmed.trim()) && frontmatterInstant(lastConfirmed, lastReset, today) !== undefined;
}
