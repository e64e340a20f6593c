/** `supersede OLD NEW` and status changes: validated transitions, links on both entries, OLD archived. */
import { refsOf } from "../check/references.js";
import type { EntryStatus, EntrySummary } from "../entry/types.js";
import { ENTRY_STATUSES } from "../entry/types.js";
import type { Layout } from "../store/layout.js";
import { applyChange, type AppendEvents, type ChangeStep } from "./change.js";
import { planArchive, type ManualResult } from "./manual.js";
import { checkTransition } from "./transitions.js";

export function statusOf(entry: EntrySummary): EntryStatus {
  const value = entry.frontmatter.status;
  return typeof value === "string" && (ENTRY_STATUSES as readonly string[]).includes(value) ? (value as EntryStatus) : "observed";
}

export async function setStatus(layout: Layout, append: AppendEvents, entry: EntrySummary, to: EntryStatus): Promise<ManualResult> {
  if (!(ENTRY_STATUSES as readonly string[]).includes(to)) {
    return { kind: "refused", id: entry.id, reason: `unknown status "${to}"; expected one of ${ENTRY_STATUSES.join(", ")}` };
  }
  if (to === "superseded") return { kind: "refused", id: entry.id, reason: "use `cairn supersede OLD NEW` so both entries are linked" };
  const from = statusOf(entry);
  const check = checkTransition(from, to);
  if (!check.ok) return { kind: "refused", id: entry.id, reason: check.reason };
  if (from === to) return { kind: "done", id: entry.id, path: entry.path, changed: false };
  // A change under the entry's lock, as every other edit of an entry: never written over by, or over, a concurrent one.
  const steps: ChangeStep[] = [
    { kind: "edit", path: entry.path, edits: [{ op: "set", key: "status", value: to }] },
    { kind: "events", events: [{ type: "status-set", entry: entry.id, from, to }] },
  ];
  const outcome = await applyChange(layout, { key: entry.id, steps }, append);
  if (outcome.kind === "stale") return { kind: "refused", id: entry.id, reason: `${outcome.reason}; nothing was changed` };
  return { kind: "done", id: entry.id, path: entry.path, changed: true };
}

export async function supersede(layout: Layout, append: AppendEvents, old: EntrySummary, replacement: EntrySummary, today: string): Promise<ManualResult> {
  if (old.id === replacement.id) return { kind: "refused", id: old.id, reason: "an entry cannot supersede itself" };
  if (replacement.state !== "active") return { kind: "refused", id: replacement.id, reason: `"${replacement.id}" is archived; restore it first or supersede with an active entry` };
  if (statusOf(old) === "superseded") {
    // Terminal: pointing OLD at another entry would orphan its first link; repeating a completed supersede is a no-op.
    const by = refsOf(old, "supersededBy");
    if (by.length && !by.includes(replacement.id)) {
      return { kind: "refused", id: old.id, reason: `"${old.id}" is already superseded by ${by.join(", ")}; superseded is terminal — supersede ${by[0]} instead` };
    }
    if (by.length && old.state === "archived" && refsOf(replacement, "supersedes").includes(old.id)) return { kind: "done", id: old.id, path: old.path, changed: false };
  }
  const check = checkTransition(statusOf(old), "superseded");
  if (!check.ok) return { kind: "refused", id: old.id, reason: check.reason };
  if (statusOf(replacement) === "superseded") return { kind: "refused", id: replacement.id, reason: `"${replacement.id}" is itself superseded` };
  const supersedes = [...new Set([...refsOf(replacement, "supersedes"), old.id])];
  // One change, so a kill -9 anywhere leaves both links, the events and the archive move to the next command's repair.
  const archive = old.state === "active" ? planArchive(layout, old, `superseded by ${replacement.id}`, today).steps : [];
  const steps: ChangeStep[] = [
    { kind: "edit", path: replacement.path, edits: [{ op: "set", key: "supersedes", value: supersedes }] },
    { kind: "edit", path: old.path, edits: [{ op: "set", key: "status", value: "superseded" }, { op: "set", key: "supersededBy", value: replacement.id }] },
    { kind: "events", events: [{ type: "superseded", entry: old.id, by: replacement.id }] },
    ...archive,
  ];
  const outcome = await applyChange(layout, { key: old.id, steps }, append);
  if (outcome.kind === "stale") return { kind: "refused", id: old.id, reason: `${outcome.reason}; nothing was changed` };
  const target = archive[0]?.kind === "move" ? archive[0].to : old.path;
  return { kind: "done", id: old.id, path: target, changed: true };
}
