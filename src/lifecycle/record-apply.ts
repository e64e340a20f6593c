/**
 * Apply a record plan: restore archived entries an independent finding re-discovered, refresh the
 * independently confirmed ones (a surgical edit), then append the `confirmed` events. Order matters
 * for crashes: a file edit before its event means a retry finds no event, plans the same edit (now a
 * no-op) and appends the event once; an event already there makes the retry skip the finding.
 */
import type { EntrySummary } from "../entry/types.js";
import type { NewEvent, RunRef } from "../ledger/index.js";
import type { Layout } from "../store/layout.js";
import { applyChange } from "./change.js";
import { restoreEntry, type AppendEvents } from "./manual.js";
import { findingHash } from "./provenance.js";
import type { RecordPlan } from "./record.js";

export type ApplyRecordDeps = {
  layout: Layout;
  run: RunRef;
  today: string;
  append: AppendEvents;
  /** Re-read an entry by id (after another process moved it). */
  reload: (id: string) => Promise<EntrySummary | undefined>;
};

/**
 * Applies `plan` in place: confirmations of entries that vanished meanwhile are dropped; those that would restore an
 * entry whose restore is refused (its place in knowledge/ is taken) move to `unmatched`, and it leaves `restores`.
 * Returns warnings.
 */
export async function applyRecord(deps: ApplyRecordDeps, plan: RecordPlan): Promise<string[]> {
  const warnings: string[] = [];
  const { layout, run, today } = deps;
  const gone = new Set<string>();
  const unrestored = new Map<string, string>();
  for (const restore of plan.restores) {
    const entry = await deps.reload(restore.id);
    if (!entry) {
      gone.add(restore.id);
      warnings.push(`"${restore.id}" was removed while recording; its confirmation is not recorded`);
      continue;
    }
    if (entry.state === "active") continue; // restored meanwhile (another record, by hand)
    const reason = `recurred: independently re-found by ${restore.agent} in run ${run.run}`;
    const restored = await restoreEntry(layout, deps.append, entry, reason, today, run.run, restore.agent);
    if (restored.kind === "refused") {
      // Nothing is recorded for the findings that would have restored it: a retry, once the obstacle is gone, plans the
      // restore again (a `confirmed` event now would make the retry skip them as already recorded, and it would stay archived).
      unrestored.set(restore.id, restored.reason);
      warnings.push(`"${restore.id}" was not restored: ${restored.reason}. Its independent finding is not recorded; record it again once that is resolved`);
    }
  }
  for (const edit of plan.edits) {
    const moved = await editOrRelocate(deps, edit);
    if (typeof moved === "object") {
      // The file is there but cairn will not edit it: the confirmation is still true, and the ledger is what decay and
      // provenance read, so its event is written; only the date in the file stays behind.
      warnings.push(`"${edit.id}" was confirmed independently, but its frontmatter could not be edited (${moved.refused}): its lastConfirmed and provenance in the file are unchanged; the ledger records the confirmation (fix the frontmatter, then \`cairn confirm ${edit.id}\` to update the file)`);
    } else if (moved === "gone") {
      gone.add(edit.id);
      warnings.push(`"${edit.id}" was removed while recording; its confirmation is not recorded`);
    } else if (moved === "restored") {
      warnings.push(`"${edit.id}" was archived while recording (a concurrent decay); the independent finding restored it`);
      for (const c of plan.confirmations) if (c.entry === edit.id && c.provenance === "independent") c.state = "restored";
    }
  }
  for (const c of plan.confirmations) {
    const why = c.state === "restored" ? unrestored.get(c.entry) : undefined;
    if (why !== undefined) plan.unmatched.push({ index: c.index, agent: c.agent, text: c.finding, reason: `matches archived entry "${c.entry}", which could not be restored: ${why}`, best: { entry: c.entry, score: c.score } });
  }
  plan.restores = plan.restores.filter((r) => !unrestored.has(r.id));
  const kept = (c: RecordPlan["confirmations"][number]) => !gone.has(c.entry) && !(c.state === "restored" && unrestored.has(c.entry));
  const events: NewEvent[] = plan.confirmations
    .filter(kept)
    .map((c) => ({
      type: "confirmed",
      run: run.run,
      ...(run.origin ? { origin: run.origin } : {}),
      agent: c.agent,
      entry: c.entry,
      provenance: c.provenance,
      findingHash: findingHash(c.finding),
      score: c.score,
    }));
  if (events.length) await deps.append(events);
  plan.confirmations = plan.confirmations.filter(kept);
  plan.unmatched.sort((a, b) => a.index - b.index);
  return warnings;
}

/**
 * Edit an independently confirmed entry where it is. If it is no longer there, another process moved
 * it after the plan was made: archived → the independent finding restores it (recurrence); gone → dropped. A file
 * that is there but whose frontmatter the surgical editor refuses (`check`: frontmatter-not-editable) is `refused`.
 */
async function editOrRelocate(deps: ApplyRecordDeps, edit: { id: string; path: string }): Promise<"edited" | "restored" | "gone" | { refused: string }> {
  const edits = [
    { op: "set" as const, key: "lastConfirmed", value: deps.today },
    { op: "set" as const, key: "provenance", value: "independent" },
  ];
  // Under the entry's lock, as every manual change is (set-status, supersede, retract, restore): a status set a moment
  // ago is not written over, and an entry moved meanwhile is not written back where it was.
  const editAt = async (file: string) => applyChange(deps.layout, { key: edit.id, steps: [{ kind: "edit", path: file, edits }] }, deps.append);
  if ((await editAt(edit.path)).kind === "applied") return "edited";
  const entry = await deps.reload(edit.id);
  if (!entry) return "gone";
  if (entry.state === "active") {
    const outcome = await editAt(entry.path);
    if (outcome.kind === "applied") return "edited";
    // Still there, and still refused: the frontmatter is laid out in a way the surgical editor will not touch.
    return (await deps.reload(edit.id))?.path === entry.path ? { refused: outcome.reason } : "gone";
  }
  const reason = `recurred: independently re-found in run ${deps.run.run} while it was being archived`;
  await restoreEntry(deps.layout, deps.append, entry, reason, deps.today, deps.run.run);
  return "restored";
}
