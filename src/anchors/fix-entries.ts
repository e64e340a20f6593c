/**
 * Apply `check --fix` to entry files: plan edits from resolved anchors, then rewrite each entry and record its
 * `anchors-fixed` event as one logged change (src/lifecycle/change.ts), so a kill between the write and the event
 * is finished by the next command instead of leaving a fixed file with no event.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { AnchorResolver } from "../check/anchors.js";
import type { Entry } from "../entry/types.js";
import { isCairnError } from "../errors.js";
import { applyChange, textHash, type AppendEvents, type ChangeStep } from "../lifecycle/change.js";
import { assertContained } from "../store/contain.js";
import type { Layout } from "../store/layout.js";
import { resolveEntryAnchors } from "./entry.js";
import { applyAnchorEdits, planAnchorEdits, type AnchorEdit } from "./fix.js";
import type { FixReport } from "../types/check.js";

export type { FixReport } from "../types/check.js";

const GONE = "moved or removed by another process since it was read (archived, retracted?); nothing was written";
const EDITED = "edited by other processes each time it was read; nothing was written — run --fix again";

export async function fixEntryAnchors(layout: Layout, resolver: AnchorResolver, entries: readonly Entry[], options: { dryRun: boolean; append: AppendEvents }): Promise<FixReport> {
  const report: FixReport = { edits: [], files: [], refused: [], dryRun: options.dryRun };
  for (const entry of entries) {
    const edits = planAnchorEdits(entry.path, await resolveEntryAnchors(resolver, entry));
    if (!edits.length) continue;
    const abs = path.join(layout.root, entry.path);
    await assertContained(layout.root, abs, `fix anchors in ${entry.path}`);
    // An entry edited by another process between the read and the write is read again (a few times at most).
    let outcome: "fixed" | "gone" | "edited" | { reason: string } = "edited";
    for (let attempt = 0; attempt < 3 && outcome === "edited"; attempt++) outcome = await fixOne(layout, entry, abs, edits, options);
    if (outcome !== "fixed") {
      report.refused.push({ file: entry.path, reason: outcome === "gone" ? GONE : outcome === "edited" ? EDITED : outcome.reason });
      continue;
    }
    report.edits.push(...edits);
    report.files.push(entry.path);
  }
  return report;
}

/** Fix one entry's anchors in its current text: written with its event as one logged change, under the entry's lock. */
async function fixOne(layout: Layout, entry: Entry, abs: string, edits: AnchorEdit[], options: { dryRun: boolean; append: AppendEvents }): Promise<"fixed" | "gone" | "edited" | { reason: string }> {
  const text = await readFile(abs).then((bytes) => bytes.toString("utf8"), () => undefined);
  if (text === undefined) return "gone";
  const applied = applyAnchorEdits(text, edits);
  if (!applied.ok) return { reason: applied.reason };
  if (options.dryRun) return "fixed";
  // The lock is the one every change to an entry takes (decay's archive, record, set-status, retract); the file is
  // written only if it still holds the text read above, so an entry archived or edited meanwhile is never overwritten.
  const event = { type: "anchors-fixed" as const, entry: entry.id, changes: edits.map((e) => ({ from: e.from, to: e.to })) };
  const steps: ChangeStep[] = [{ kind: "rewrite", path: entry.path, before: textHash(text), text: applied.text }, { kind: "events", events: [event] }];
  const outcome = await applyChange(layout, { key: entry.id, steps }, options.append).catch((error: unknown) => {
    if (isCairnError(error) && error.code === "CONFLICT") return { kind: "stale" as const };
    throw error;
  });
  if (outcome.kind === "applied") return "fixed";
  return (await readFile(abs).then(() => true, () => false)) ? "edited" : "gone";
}
