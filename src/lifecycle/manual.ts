/**
 * Manual operations (lifecycle rule 4): confirm, retract, restore — and archive, shared with
 * decay, supersede and compound. Each is planned as a Change and applied by `applyChange`, so a
 * kill -9 at any point is completed by the next command (see src/lifecycle/change.ts).
 */
import path from "node:path";
import type { FrontmatterEdit } from "../entry/edit.js";
import { todayUtc } from "../entry/file-facts.js";
import type { EntrySummary } from "../entry/types.js";
import { relativePath, type Layout } from "../store/layout.js";
import { editedText, entryPath, readEntryText } from "../store/mutate.js";
import { applyChange, type AppendEvents, type Change, type ChangeOutcome } from "./change.js";
import type { NewEvent } from "../ledger/index.js";
import type { ManualResult } from "../types/entries.js";

export type { AppendEvents } from "./change.js";

export { lookup, unreadableEntry, type Lookup } from "./lookup.js";

export type { ManualResult } from "../types/entries.js";

/** Where an entry goes when it moves to `dir`: same file name. */
function movedPath(layout: Layout, entry: EntrySummary, dir: string): string {
  return relativePath(layout, path.join(dir, path.basename(entry.path)));
}

/** The steps of an archive: move to knowledge/archive/ adding `archived` and `archivedReason`, then the `archived` event. */
export function planArchive(layout: Layout, entry: EntrySummary, reason: string, today: string, run?: string): Change {
  return {
    key: entry.id,
    steps: [
      {
        kind: "move",
        from: entry.path,
        to: movedPath(layout, entry, layout.archive),
        edits: [
          { op: "set", key: "archived", value: today },
          { op: "set", key: "archivedReason", value: reason },
        ],
      },
      { kind: "events", events: [{ type: "archived", entry: entry.id, reason, ...(run ? { run } : {}) }] },
    ],
  };
}

/** The steps of a restore: move back to knowledge/ without `archived*`, confirmed today, then the `restored` event. */
export function planRestore(layout: Layout, entry: EntrySummary, reason: string, today: string, run?: string, agent?: string): Change {
  return {
    key: entry.id,
    steps: [
      {
        kind: "move",
        from: entry.path,
        to: movedPath(layout, entry, layout.knowledge),
        edits: [
          { op: "remove", key: "archived" },
          { op: "remove", key: "archivedReason" },
          { op: "set", key: "lastConfirmed", value: today },
          { op: "set", key: "provenance", value: "independent" },
        ],
      },
      { kind: "events", events: [{ type: "restored", entry: entry.id, reason, ...(run ? { run } : {}), ...(agent ? { agent } : {}) }] },
    ],
  };
}

export async function confirmEntry(layout: Layout, append: AppendEvents, entry: EntrySummary, today = todayUtc()): Promise<ManualResult> {
  if (entry.state === "archived") {
    return { kind: "refused", id: entry.id, reason: `"${entry.id}" is archived; use \`cairn restore ${entry.id}\` to bring it back (restore also confirms it)` };
  }
  const edits: FrontmatterEdit[] = [
    { op: "set", key: "lastConfirmed", value: today },
    { op: "set", key: "provenance", value: "independent" },
  ];
  const abs = entryPath(layout, entry.path);
  const before = await readEntryText(layout, abs);
  const changed = before !== undefined && (await editedText(layout, abs, edits)) !== before;
  const outcome = await applyChange(layout, { key: entry.id, steps: [{ kind: "edit", path: entry.path, edits }, { kind: "events", events: [{ type: "manual-confirmed", entry: entry.id }] }] }, append);
  if (outcome.kind === "stale") return { kind: "refused", id: entry.id, reason: outcome.reason };
  return { kind: "done", id: entry.id, path: entry.path, changed };
}

export async function retractEntry(layout: Layout, append: AppendEvents, entry: EntrySummary): Promise<ManualResult> {
  // "git keeps the history" holds only for what git has: an entry never committed, or edited since, would be gone.
  const { uncommitted } = await import("../store/tracked.js");
  const missing = await uncommitted(layout.root, path.join(layout.root, entry.path));
  if (missing) {
    const what = missing === "untracked" ? "was never committed" : "has changes that are not committed";
    return { kind: "refused", id: entry.id, reason: `${entry.path} ${what}: retract deletes the file and git could not bring ${missing === "untracked" ? "it" : "them"} back; expected a committed entry — commit it first (or delete the file yourself if you mean to lose it); nothing was changed` };
  }
  const outcome = await applyChange(layout, { key: entry.id, steps: [{ kind: "delete", path: entry.path }, { kind: "events", events: [{ type: "retracted", entry: entry.id }] }] }, append);
  if (outcome.kind === "stale") return { kind: "refused", id: entry.id, reason: outcome.reason };
  return { kind: "done", id: entry.id, path: entry.path, changed: true };
}

/** Move an archived entry back to knowledge/ (crash-safe, idempotent: a restore another process already made is `changed: false`). */
export async function restoreEntry(layout: Layout, append: AppendEvents, entry: EntrySummary, reason: string, today = todayUtc(), run?: string, agent?: string, also: NewEvent[] = []): Promise<ManualResult> {
  if (entry.state !== "archived") return { kind: "refused", id: entry.id, reason: `"${entry.id}" is already active (${entry.path})` };
  // `also`: events that belong to the same change (compound's `compounded`), logged with it so a kill cannot split them.
  const change = planRestore(layout, entry, reason, today, run, agent);
  if (also.length) change.steps.push({ kind: "events", events: also });
  return moved(entry, await applyChange(layout, change, append), movedPath(layout, entry, layout.knowledge));
}

/** Move an active entry to knowledge/archive/ (crash-safe, idempotent: an archive another process already made is `changed: false`). */
export async function archiveEntry(layout: Layout, append: AppendEvents, entry: EntrySummary, reason: string, today = todayUtc(), run?: string): Promise<ManualResult> {
  if (entry.state === "archived") return { kind: "refused", id: entry.id, reason: `"${entry.id}" is already archived` };
  return moved(entry, await applyChange(layout, planArchive(layout, entry, reason, today, run), append), movedPath(layout, entry, layout.archive));
}

function moved(entry: EntrySummary, outcome: ChangeOutcome, target: string): ManualResult {
  if (outcome.kind === "applied") return { kind: "done", id: entry.id, path: target, changed: true };
  if (outcome.done) return { kind: "done", id: entry.id, path: target, changed: false };
  return { kind: "refused", id: entry.id, reason: `cannot move "${entry.id}": ${outcome.reason}; nothing was changed` };
}
