/** Apply `check --fix` to entry files: plan edits from resolved anchors, write atomically, record an `anchors-fixed` event per entry. */
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { AnchorResolver } from "../check/anchors.js";
import type { Entry } from "../entry/types.js";
import type { NewEvent } from "../ledger/index.js";
import { writeFileAtomic } from "../store/atomic.js";
import { assertContained } from "../store/contain.js";
import { resolveEntryAnchors } from "./entry.js";
import { applyAnchorEdits, planAnchorEdits } from "./fix.js";
import type { FixReport } from "../types/check.js";

export type { FixReport } from "../types/check.js";

export async function fixEntryAnchors(root: string, resolver: AnchorResolver, entries: readonly Entry[], options: { dryRun: boolean; append: (events: NewEvent[]) => Promise<unknown> }): Promise<FixReport> {
  const report: FixReport = { edits: [], files: [], refused: [], dryRun: options.dryRun };
  for (const entry of entries) {
    const edits = planAnchorEdits(entry.path, await resolveEntryAnchors(resolver, entry));
    if (!edits.length) continue;
    const abs = path.join(root, entry.path);
    await assertContained(root, abs, `fix anchors in ${entry.path}`);
    const applied = applyAnchorEdits((await readFile(abs)).toString("utf8"), edits);
    if (!applied.ok) {
      report.refused.push({ file: entry.path, reason: applied.reason });
      continue;
    }
    report.edits.push(...edits);
    report.files.push(entry.path);
    if (options.dryRun) continue;
    await writeFileAtomic(abs, applied.text);
    await options.append([{ type: "anchors-fixed", entry: entry.id, changes: edits.map((e) => ({ from: e.from, to: e.to })) }]);
  }
  return report;
}
