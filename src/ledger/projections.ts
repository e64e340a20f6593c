/** Pure views over ledger events: decay counters (lifecycle rule 3), confirmations, injections. */
import type { LedgerEvent } from "./events.js";

export type EntryLedgerView = {
  entry: string;
  /** Distinct runs that injected the entry (into any agent) after its last confirmation. */
  unconfirmedRuns: number;
  /** The last confirmation instant used for the counter (ISO), if any. */
  lastConfirmedAt?: string;
  /** `confirmed` events by provenance, over the whole ledger. */
  confirmations: { independent: number; primed: number };
  /** Time of the latest injection (ISO). */
  lastInjected?: string;
  /** Run of the latest injection. */
  lastInjectedRun?: string;
  /** Total distinct runs that ever injected the entry. */
  injectedRuns: number;
};

/** Per-entry information from the frontmatter that the projection needs. */
export type EntryConfirmationInfo = { id: string; lastConfirmed?: string };

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The instant a frontmatter `lastConfirmed` stands for: a date counts until the end of that
 * day UTC (`2026-02-12` → `2026-02-12T23:59:59.999Z`); a full timestamp counts as itself.
 * Undefined for a missing or unparseable value.
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

function endOfDay(date: string): string | undefined {
  const ms = Date.parse(`${date}T23:59:59.999Z`);
  if (Number.isNaN(ms)) return undefined;
  const iso = new Date(ms).toISOString();
  // Date.parse rolls 2026-02-30 over to March; such a date is invalid, not a different day.
  return iso.startsWith(date) ? iso : undefined;
}

/** Events that reset the decay counter: independent confirmations, manual confirmations, restores, compounding. */
export function resetsCounter(event: LedgerEvent): boolean {
  switch (event.type) {
    case "confirmed":
      return event.provenance === "independent";
    case "manual-confirmed":
    case "restored":
    case "compounded":
      return true;
    default:
      return false;
  }
}

/**
 * Project the ledger onto `entries` (lifecycle rule 3). Times are compared as canonical ISO
 * strings, which is what `readLedger` returns. Events may come in any order. Events about
 * entries not in `entries` are ignored; every listed entry gets a view (zeros if never seen).
 *
 * Built for 100k events: runs and entries are numbered once, and distinct runs are counted over
 * typed arrays of (entry, run) pairs rather than with a set per entry.
 */
export function projectLedger(events: readonly LedgerEvent[], entries: readonly EntryConfirmationInfo[]): Map<string, EntryLedgerView> {
  const index = new Map<string, number>();
  const ids: string[] = [];
  /** Per entry: the last confirmation instant, starting from the frontmatter date (end of day UTC). */
  const since: Array<string | undefined> = [];
  for (const { id, lastConfirmed } of entries) {
    if (index.has(id)) continue;
    index.set(id, ids.length);
    ids.push(id);
    since.push(confirmationInstant(lastConfirmed));
  }
  const count = ids.length;
  const independent = new Uint32Array(count);
  const primed = new Uint32Array(count);
  const lastInjected: Array<string | undefined> = ids.map(() => undefined);
  const lastInjectedRun: Array<string | undefined> = ids.map(() => undefined);

  // Pass 1: confirmations; resets move `since` later; number the runs that inject something.
  const runIndex = new Map<string, number>();
  const runOf = new Int32Array(events.length);
  let pairs = 0;
  for (let i = 0; i < events.length; i++) {
    const event = events[i] as LedgerEvent;
    if (event.type === "injected") {
      let run = runIndex.get(event.run);
      if (run === undefined) {
        run = runIndex.size;
        runIndex.set(event.run, run);
      }
      runOf[i] = run;
      pairs += event.entries.length;
      continue;
    }
    if (!("entry" in event)) continue;
    const e = index.get(event.entry);
    if (e === undefined) continue;
    if (event.type === "confirmed") {
      const counter = event.provenance === "independent" ? independent : primed;
      counter[e] = (counter[e] ?? 0) + 1;
    }
    if (resetsCounter(event)) {
      const current = since[e];
      if (current === undefined || event.time > current) since[e] = event.time;
    }
  }
  // Pass 2: every (entry, run) injection, flagged when strictly after the last confirmation.
  const pairEntry = new Int32Array(pairs);
  const pairRun = new Int32Array(pairs);
  const pairAfter = new Uint8Array(pairs);
  let n = 0;
  for (let i = 0; i < events.length; i++) {
    const event = events[i] as LedgerEvent;
    if (event.type !== "injected") continue;
    for (const id of event.entries) {
      const e = index.get(id);
      if (e === undefined) continue;
      pairEntry[n] = e;
      pairRun[n] = runOf[i] as number;
      const confirmed = since[e];
      pairAfter[n] = confirmed === undefined || event.time > confirmed ? 1 : 0;
      n += 1;
      const last = lastInjected[e];
      if (last === undefined || event.time >= last) {
        lastInjected[e] = event.time;
        lastInjectedRun[e] = event.run;
      }
    }
  }
  const { injectedRuns, unconfirmedRuns } = countDistinctRuns(pairEntry.subarray(0, n), pairRun, pairAfter, count, runIndex.size);

  const result = new Map<string, EntryLedgerView>();
  for (let e = 0; e < count; e++) {
    const view: EntryLedgerView = {
      entry: ids[e] as string,
      unconfirmedRuns: unconfirmedRuns[e] ?? 0,
      confirmations: { independent: independent[e] ?? 0, primed: primed[e] ?? 0 },
      injectedRuns: injectedRuns[e] ?? 0,
    };
    const confirmed = since[e];
    if (confirmed !== undefined) view.lastConfirmedAt = confirmed;
    const last = lastInjected[e];
    if (last !== undefined) {
      view.lastInjected = last;
      view.lastInjectedRun = lastInjectedRun[e] as string;
    }
    result.set(view.entry, view);
  }
  return result;
}

/**
 * Distinct runs per entry, over all pairs and over the pairs flagged "after". Linear: pairs are
 * bucketed by entry (a counting sort), then each bucket marks the runs it has seen in an array
 * stamped with the entry's number, so no set is allocated per entry.
 */
function countDistinctRuns(
  pairEntry: Int32Array,
  pairRun: Int32Array,
  pairAfter: Uint8Array,
  count: number,
  runs: number,
): { injectedRuns: Uint32Array; unconfirmedRuns: Uint32Array } {
  const start = new Int32Array(count + 1);
  for (const e of pairEntry) start[e + 1] = (start[e + 1] ?? 0) + 1;
  for (let e = 0; e < count; e++) start[e + 1] = (start[e + 1] ?? 0) + (start[e] ?? 0);
  const cursor = start.slice(0, count);
  const order = new Int32Array(pairEntry.length);
  for (let p = 0; p < pairEntry.length; p++) {
    const e = pairEntry[p] as number;
    const at = cursor[e] as number;
    order[at] = p;
    cursor[e] = at + 1;
  }
  const seenAny = new Int32Array(runs).fill(-1);
  const seenAfter = new Int32Array(runs).fill(-1);
  const injectedRuns = new Uint32Array(count);
  const unconfirmedRuns = new Uint32Array(count);
  for (let e = 0; e < count; e++) {
    let any = 0;
    let after = 0;
    for (let k = start[e] as number, end = start[e + 1] as number; k < end; k++) {
      const p = order[k] as number;
      const run = pairRun[p] as number;
      if (seenAny[run] !== e) {
        seenAny[run] = e;
        any += 1;
      }
      if (pairAfter[p] === 1 && seenAfter[run] !== e) {
        seenAfter[run] = e;
        after += 1;
      }
    }
    injectedRuns[e] = any;
    unconfirmedRuns[e] = after;
  }
  return { injectedRuns, unconfirmedRuns };
}

/** Entry ids injected in `run` (into `agent`, or into any agent when omitted), unique, in first-injection order. */
export function injectionsForRun(events: readonly LedgerEvent[], run: string, agent?: string): string[] {
  const ids = new Set<string>();
  for (const event of events) {
    if (event.type !== "injected" || event.run !== run) continue;
    if (agent !== undefined && event.agent !== agent) continue;
    for (const id of event.entries) ids.add(id);
  }
  return [...ids];
}

/** True when `entryId` was injected into `agent` in `run`: a finding by that agent matching it is primed. */
export function wasInjected(events: readonly LedgerEvent[], run: string, agent: string, entryId: string): boolean {
  for (const event of events) {
    if (event.type === "injected" && event.run === run && event.agent === agent && event.entries.includes(entryId)) return true;
  }
  return false;
}
