/** Apply `check --fix` to entry files: plan edits from resolved anchors, write atomically, record an `anchors-fixed` event per entry. */
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { AnchorResolver } from "../check/anchors.js";
import type { Entry } from "../entry/types.js";
import type { NewEvent } from "../ledger/index.js";
import { writeFileAtomic } from "../store/atomic.js";
import { assertContained } from "../store/contain.js";
import type { Layout } from "../store/layout.js";
import { lockEntry, readIntent } from "../store/pending.js";
import { resolveEntryAnchors } from "./entry.js";
import { applyAnchorEdits, planAnchorEdits } from "./fix.js";
import type { FixReport } from "../types/check.js";

export type { FixReport } from "../types/check.js";

export async function fixEntryAnchors(layout: Layout, resolver: AnchorResolver, entries: readonly Entry[], options: { dryRun: boolean; append: (events: NewEvent[]) => Promise<unknown> }): Promise<FixReport> {
  const report: FixReport = { edits: [], files: [], refused: [], dryRun: options.dryRun };
  for (const entry of entries) {
    const edits = planAnchorEdits(entry.path, await resolveEntryAnchors(resolver, entry));
    if (!edits.length) continue;
    const abs = path.join(layout.root, entry.path);
    await assertContained(layout.root, abs, `fix anchors in ${entry.path}`);
    // The entry's lock, as every change to an entry takes (decay's archive, record, set-status, retract): the file is
    // read and written back while no other process moves or edits it. Without it, an entry archived or retracted
    // between the read and the write came back to knowledge/.
    const release = options.dryRun ? undefined : await lockEntry(layout, entry.id);
    try {
      const refused = (reason: string) => void report.refused.push({ file: entry.path, reason });
      if (release && (await readIntent(layout, entry.id))) {
        refused("another change to this entry was interrupted; the next command that changes entries (confirm, record, decay) finishes it, then run --fix again");
        continue;
      }
      const text = await readFile(abs).then((bytes) => bytes.toString("utf8"), () => undefined);
      if (text === undefined) {
        refused("moved or removed by another process since it was read (archived, retracted?); nothing was written");
        continue;
      }
      const applied = applyAnchorEdits(text, edits);
      if (!applied.ok) {
        refused(applied.reason);
        continue;
      }
      report.edits.push(...edits);
      report.files.push(entry.path);
      if (options.dryRun) continue;
      await writeFileAtomic(abs, applied.text);
      await options.append([{ type: "anchors-fixed", entry: entry.id, changes: edits.map((e) => ({ from: e.from, to: e.to })) }]);
    } finally {
      await release?.();
    }
  }
  return report;
}
