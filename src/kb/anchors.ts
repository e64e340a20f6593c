/** Entries' anchors as the knowledge base changes them: drifted anchors repaired, and fingerprints recorded on confirmation. */
import type { Entry } from "../entry/types.js";
import type { NewEvent } from "../ledger/index.js";
import type { FixAnchorsOptions, FixReport } from "../types/check.js";
import type { KbContext } from "./context.js";

/** Repair drifted anchors surgically (moved line ranges, renamed paths); `dryRun` only previews. */
export async function fixAnchors(ctx: Pick<KbContext, "layout" | "config" | "append" | "load" | "invalidate" | "repair" | "warn">, options: FixAnchorsOptions = {}): Promise<FixReport> {
  // As every command that changes entries: first finish what a killed process left pending (a killed --fix among
  // them, whose entry is already rewritten: without this, a second --fix found nothing to fix and left its event out).
  if (!options.dryRun) await ctx.repair();
  const { fixEntryAnchors } = await import("../anchors/fix-entries.js");
  const { anchorResolverFor } = await import("../check/anchors.js");
  const { selectEntries } = await import("../anchors/live.js");
  const { withLifecycleLock } = await import("../lifecycle/lifecycle-lock.js");
  // Between a `record`'s edits and its events, or a manual change's steps, no fix is written (a dry run only reads).
  const report = await withLifecycleLock(ctx.layout, !options.dryRun, async () => {
    const loaded = await ctx.load();
    const entries = selectEntries(ctx.layout, loaded.entries, options.paths);
    return fixEntryAnchors(ctx.layout, anchorResolverFor(ctx.layout, { repos: ctx.config.repos }), entries, { dryRun: options.dryRun ?? false, append: ctx.append });
  }, ctx.warn);
  if (!report.dryRun && report.files.length) ctx.invalidate();
  return report;
}

/** An append that adds anchor fingerprints to the confirmation events of `entries`. */
export async function fingerprinting(ctx: Pick<KbContext, "layout" | "config" | "append">, entries: Entry[]): Promise<(events: NewEvent[]) => Promise<unknown>> {
  const { appendWithFingerprints } = await import("../anchors/entry.js");
  const { anchorResolverFor } = await import("../check/anchors.js");
  return appendWithFingerprints(ctx.append, anchorResolverFor(ctx.layout, { repos: ctx.config.repos }), entries);
}
