/**
 * Runs in the ledger: what one agent was given (or had withheld) in one run. A run is its id plus
 * its origin (branch and clone, see src/lifecycle/origin.ts): two branches' `pr-1` are two runs.
 * Agent names compare with `agentKey` (case- and whitespace-insensitive).
 */
import { agentKey } from "../entry/agent-name.js";
import type { LedgerEvent } from "./events.js";

/** Where a run happened; undefined outside git or on events written before origins were recorded. */
export type RunRef = { run: string; origin?: string };

/** The key that tells runs apart: the id, and the origin when there is one. */
export function runKey(run: string, origin: string | undefined): string {
  return origin ? `${run}\u0000${origin}` : run;
}

/**
 * True when an event of run `event` belongs to the run `ref`: same id and, when both know their
 * origin, the same origin. An event without an origin (written before origins were recorded)
 * matches any origin, so provenance errs towards primed.
 */
export function sameRun(event: { run: string; origin?: string }, ref: RunRef): boolean {
  return event.run === ref.run && (ref.origin === undefined || event.origin === undefined || event.origin === ref.origin);
}

/** Entry ids injected in `run` (into `agent`, or into any agent when omitted), unique, in first-injection order. */
export function injectionsForRun(events: readonly LedgerEvent[], run: string | RunRef, agent?: string): string[] {
  const ref = typeof run === "string" ? { run } : run;
  const key = agent === undefined ? undefined : agentKey(agent);
  const ids = new Set<string>();
  for (const event of events) {
    if (event.type !== "injected" || !sameRun(event, ref)) continue;
    if (key !== undefined && agentKey(event.agent) !== key) continue;
    for (const id of event.entries) ids.add(id);
  }
  return [...ids];
}

/** Entry ids the holdout policy withheld in `run` (from `agent`, or from any agent when omitted). */
export function heldOutForRun(events: readonly LedgerEvent[], run: RunRef, agent?: string): string[] {
  const key = agent === undefined ? undefined : agentKey(agent);
  const ids = new Set<string>();
  for (const event of events) {
    if (event.type !== "held-out" || !sameRun(event, run)) continue;
    if (key !== undefined && agentKey(event.agent) !== key) continue;
    ids.add(event.entry);
  }
  return [...ids];
}

/** True when `entryId` was injected into `agent` in `run`: a finding by that agent matching it is primed. */
export function wasInjected(events: readonly LedgerEvent[], run: string | RunRef, agent: string, entryId: string): boolean {
  const ref = typeof run === "string" ? { run } : run;
  const key = agentKey(agent);
  for (const event of events) {
    if (event.type === "injected" && sameRun(event, ref) && agentKey(event.agent) === key && event.entries.includes(entryId)) return true;
  }
  return false;
}

/** What the ledger knows about one run: whether any inject call was recorded, and for which agents (by agentKey). */
export type RunRecord = { injected: boolean; agents: Set<string> };

export function runRecord(events: readonly LedgerEvent[], run: RunRef): RunRecord {
  const record: RunRecord = { injected: false, agents: new Set() };
  for (const event of events) {
    if ((event.type === "injected" || event.type === "held-out") && sameRun(event, run)) {
      record.injected = true;
      record.agents.add(agentKey(event.agent));
    }
  }
  return record;
}

/** Distinct run ids with a recorded injection, most recent first (for "did you mean" on a mistyped run id). */
export function knownRuns(events: readonly LedgerEvent[]): string[] {
  const seen = new Set<string>();
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i] as LedgerEvent;
    if (event.type === "injected") seen.add(event.run);
  }
  return [...seen];
}
