/**
 * Holdout — "fresh eyes before archiving" (README): an entry one injected run away from decay is
 * withheld from the agents it would have been injected into, in up to `holdoutRuns(config)` runs,
 * so that an agent re-finding it there does so independently and saves it. A true pattern that only
 * one agent can find is otherwise always primed and always starves; a false positive is never
 * found when withheld, and decays after the budget is spent (decay.ts `limitOf`).
 *
 * Pure: the decision is a function of (run, agent, entry) and the ledger before the call. Within a
 * run it is consistent across agents and repeated calls (a run that withheld the entry keeps
 * withholding it; a run that injected it keeps injecting it), so one run never counts twice.
 */
import { holdoutRuns, type CairnConfig } from "../config.js";
import { limitOf, type LimitView } from "./decay.js";

export type HoldoutInput = LimitView & {
  /** This run already injected the entry into some agent. */
  injectedThisRun: boolean;
  /** This run already withheld the entry from some agent. */
  heldOutThisRun: boolean;
  /** The review names changed files and none is the entry's (search's `awayFromChange`): withholding it here would test nothing. */
  awayFromChange?: boolean;
};

export type HoldoutDecision =
  | { kind: "inject" }
  /** Withhold it from this agent and record a `held-out` event; another entry may take the slot. */
  | { kind: "hold-out"; reason: string }
  /** Not injected at all: past its decay limit (the next decay archives it), or due for holdout in a review away from its code (nothing recorded). */
  | { kind: "skip"; reason: string };

export function decideHoldout(input: HoldoutInput, config: Pick<CairnConfig, "decayAfterRuns" | "holdout">): HoldoutDecision {
  const budget = holdoutRuns(config);
  const n = config.decayAfterRuns;
  if (input.heldOutThisRun) return { kind: "hold-out", reason: "withheld from every agent in this run (holdout)" };
  if (input.injectedThisRun) return { kind: "inject" };
  const limit = limitOf(input, config);
  if (limit.kind === "past-limit") return { kind: "skip", reason: `${limit.reason}; the next record or decay archives it` };
  if (limit.kind === "last-chance") {
    // A last-chance run is a test only if the agent could re-find the entry: a review of other files cannot, so
    // withholding it there would spend the test on nothing and showing it would count a run it could not pass.
    if (input.awayFromChange) {
      return { kind: "skip", reason: `holdout: ${input.unconfirmedRuns}/${n} runs without an independent confirmation; this change does not touch the files it cites, so it is neither shown nor tested here` };
    }
    return {
      kind: "hold-out",
      reason: `holdout: ${input.unconfirmedRuns}/${n} runs without an independent confirmation; withheld (run ${input.heldOutRuns + 1} of ${budget}) so that a re-discovery is independent`,
    };
  }
  return { kind: "inject" };
}
