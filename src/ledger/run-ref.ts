/**
 * What tells runs apart: a run is its id plus its origin (branch and clone, see
 * src/lifecycle/origin.ts), so two branches' `pr-1` are two runs.
 */

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

/** What the ledger knows about one run: whether any inject call was recorded, and for which agents (by agentKey). */
export type RunRecord = { injected: boolean; agents: Set<string> };
