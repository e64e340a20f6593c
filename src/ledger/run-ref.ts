/**
 * What tells runs apart: a run is its id plus its origin (branch and clone, see
 * src/lifecycle/origin.ts), so two branches' `pr-1` are two runs.
 */

import { runIdKey } from "./run-id.js";

/** Where a run happened; undefined outside git or on events written before origins were recorded. */
export type RunRef = { run: string; origin?: string };

/** The key that tells runs apart: the id (by runIdKey), and the origin when there is one. */
export function runKey(run: string, origin: string | undefined): string {
  const id = runIdKey(run);
  return origin ? `${id}\u0000${origin}` : id;
}

/**
 * True when an event of run `event` belongs to the run `ref`: same id (by runIdKey: `PR-7` is `pr-7`) and, when both know their
 * origin, the same origin. An event without an origin (written before origins were recorded)
 * matches any origin, so provenance errs towards primed.
 */
export function sameRun(event: { run: string; origin?: string }, ref: RunRef): boolean {
  return (event.run === ref.run || runIdKey(event.run) === runIdKey(ref.run)) && (ref.origin === undefined || event.origin === undefined || event.origin === ref.origin);
}

/** What the ledger knows about one run: whether any inject call was recorded, and for which agents (by agentKey). */
export type RunRecord = { injected: boolean; agents: Set<string> };
