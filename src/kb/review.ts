/** The after-review operations by the knowledge base: `record`, `decay` and `compound`, validated, repaired first, run under the lifecycle lock. */
import type { ReviewDeps } from "../lifecycle/review.js";
import type { CompoundFinding, CompoundResult, DecayOptions, DecayResult, Finding, RecordResult, ReviewOptions } from "../types/review.js";
import { fingerprinting } from "./anchors.js";
import type { KbContext } from "./context.js";

/** What the review operations use of the knowledge base. */
export type ReviewContext = Pick<KbContext, "layout" | "config" | "ledger" | "append" | "today" | "origin" | "repair" | "knowledge" | "entryOf" | "search" | "refreshBeforeMatching" | "invalidate" | "warn">;

/**
 * Record a run's findings: independent re-discoveries refresh entries (or restore archived ones), primed ones only
 * add events; a finding already recorded for (run, agent) is not counted again; then decay runs.
 */
export async function recordFindings(ctx: ReviewContext, run: string, findings: Finding[], options: ReviewOptions = {}): Promise<RecordResult> {
  const { parseRecordInput } = await import("../lifecycle/inputs.js");
  const input = parseRecordInput(run, findings);
  return underLifecycleLock(ctx, options, (review, deps) => review.recordFindings(deps, input.run, input.findings, options));
}

/** Archive every active entry past its decay limit (decayAfterRuns injected runs, or its holdout runs spent, since its last confirmation). Never deletes. */
export async function decay(ctx: ReviewContext, options: DecayOptions = {}): Promise<DecayResult> {
  if (options.run !== undefined) {
    const { parseInput, runSchema } = await import("../lifecycle/inputs.js");
    parseInput(runSchema, options.run, "decay: the run id", 'decay({ run: "pr-123" })');
  }
  return underLifecycleLock(ctx, options, async (review, deps) => review.decayLoaded(deps, await ctx.knowledge(), options));
}

/** Turn converging findings (2+ independent agents, durable, evidence + verify, sanitized, not a duplicate) into entries; restore recurring archived ones. */
export async function compound(ctx: ReviewContext, run: string, findings: CompoundFinding[], options: ReviewOptions = {}): Promise<CompoundResult> {
  const { parseCompoundInput } = await import("../lifecycle/inputs.js");
  const input = parseCompoundInput(run, findings);
  return underLifecycleLock(ctx, options, (review, deps) => review.compound(deps, input.run, input.findings, options));
}

/** Pending changes repaired first, then `task` under the lifecycle lock (a dry run writes nothing: neither is done). */
async function underLifecycleLock<T>(ctx: ReviewContext, options: { dryRun?: boolean }, task: (review: typeof import("../lifecycle/review.js"), deps: ReviewDeps) => Promise<T>): Promise<T> {
  if (!options.dryRun) await ctx.repair();
  const review = await import("../lifecycle/review.js");
  return review.withLifecycleLock(ctx.layout, !options.dryRun, () => task(review, reviewDeps(ctx)), ctx.warn);
}

function reviewDeps(ctx: ReviewContext): ReviewDeps {
  return {
    layout: ctx.layout,
    config: ctx.config,
    ledger: ctx.ledger,
    append: ctx.append,
    today: () => ctx.today(),
    origin: () => ctx.origin(),
    knowledge: (options) => ctx.knowledge(options),
    entryOf: (entry) => ctx.entryOf(entry),
    search: (query, options) => ctx.search(query, options),
    refreshBeforeMatching: () => ctx.refreshBeforeMatching(),
    invalidate: () => ctx.invalidate(),
    fingerprinting: (entries) => fingerprinting(ctx, entries),
  };
}
