/** The manual lifecycle operations by entry id: confirm, retract, restore, archive, setStatus, supersede. */
import type { Entry, EntryStatus, EntrySummary } from "../entry/types.js";
import { refsOf } from "../check/references.js";
import { CairnError } from "../errors.js";
import { ambiguousEntry, lookup, unreadableEntry } from "../lifecycle/lookup.js";
import type { ManualResult } from "../types/entries.js";
import { fingerprinting } from "./anchors.js";
import type { KbContext } from "./context.js";
import { byFileName } from "./entry-file.js";

/** What the manual operations use of the knowledge base. */
export type ManualContext = Pick<KbContext, "layout" | "config" | "append" | "today" | "repair" | "invalidate" | "knowledge" | "entryOf" | "warn">;

/** Mark an entry independently confirmed today (a one/two-line diff). */
export function confirm(ctx: ManualContext, id: string): Promise<ManualResult> {
  return withEntry(ctx, id, async (record) => {
    // The ledger event carries the anchored lines' fingerprints: the only operation here that needs the entry's body.
    const entry = "evidence" in record ? (record as Entry) : await ctx.entryOf(record);
    if (!entry) return { kind: "refused", id, reason: `${record.path} changed while confirming "${id}"; run the command again` };
    const { confirmEntry } = await import("../lifecycle/manual.js");
    return confirmEntry(ctx.layout, await fingerprinting(ctx, [entry]), entry, ctx.today());
  });
}

/** Delete an entry's file (git keeps its history) and record a `retracted` event. */
export function retract(ctx: ManualContext, id: string): Promise<ManualResult> {
  return withEntry(ctx, id, async (entry) => (await import("../lifecycle/manual.js")).retractEntry(ctx.layout, ctx.append, entry));
}

/** Move an archived entry back to knowledge/ and confirm it today. */
export function restore(ctx: ManualContext, id: string, reason: string): Promise<ManualResult> {
  return withEntry(ctx, id, async (entry) => {
    // Superseded is terminal: restored, it would be active but never injected and never decay (record and compound refuse it too).
    if (entry.frontmatter.status === "superseded") {
      const replacements = refsOf(entry, "supersededBy");
      const by = replacements.length ? ` by ${replacements.join(", ")}` : "";
      return { kind: "refused", id, reason: `"${id}" is superseded${by}; superseded is terminal, so a restored copy would stay in knowledge/ without ever being injected or decaying — confirm or restore its replacement instead` };
    }
    return (await import("../lifecycle/manual.js")).restoreEntry(ctx.layout, ctx.append, entry, reason, ctx.today());
  });
}

/** Move an active entry to knowledge/archive/ with `archived` and `archivedReason`. */
export function archive(ctx: ManualContext, id: string, reason: string): Promise<ManualResult> {
  return withEntry(ctx, id, async (entry) => (await import("../lifecycle/manual.js")).archiveEntry(ctx.layout, ctx.append, entry, reason, ctx.today()));
}

/** Change an entry's claim status; transitions are validated (superseded is terminal, disputed → verified | superseded). */
export async function setStatus(ctx: ManualContext, id: string, status: EntryStatus): Promise<ManualResult> {
  const { setStatus: setClaimStatus } = await import("../lifecycle/supersede.js");
  return withEntry(ctx, id, (entry) => setClaimStatus(ctx.layout, ctx.append, entry, status));
}

/** Link OLD and NEW (supersededBy / supersedes) and archive OLD. */
export async function supersede(ctx: ManualContext, oldId: string, newId: string): Promise<ManualResult> {
  const { supersede: supersedeEntry } = await import("../lifecycle/supersede.js");
  await ctx.repair();
  const known = await ctx.knowledge();
  const replacement = lookup(known.byId, newId);
  const broken = unreadableEntry(known, newId) ?? ambiguousEntry(known, newId);
  if (broken) return { kind: "refused", id: newId, reason: broken };
  if (replacement.kind === "not-found") return { kind: "not-found", id: newId, suggestions: replacement.suggestions };
  return withEntry(ctx, oldId, (old) => supersedeEntry(ctx.layout, ctx.append, old, replacement.entry, ctx.today()));
}

async function withEntry(ctx: ManualContext, id: string, action: (entry: EntrySummary) => Promise<ManualResult>): Promise<ManualResult> {
  if (!id || id.includes("/") || id.includes("\\") || id.includes("..")) {
    throw new CairnError("USAGE", `"${id}" is not an entry id; expected the file name without .md, e.g. auth-middleware-swallows-ctx-cancel`);
  }
  // One lifecycle writer at a time: a `record` running now edits entries and appends their events in several steps,
  // and a retract or a status change must come before or after all of them, not between.
  const { withLifecycleLock } = await import("../lifecycle/lifecycle-lock.js");
  return withLifecycleLock(ctx.layout, true, () => lookedUp(ctx, id, action), ctx.warn);
}

async function lookedUp(ctx: ManualContext, id: string, action: (entry: EntrySummary) => Promise<ManualResult>): Promise<ManualResult> {
  await ctx.repair();
  // The entry's own file first (its id is its file name, as almost always); else the catalogue, just refreshed from
  // the files. The change itself re-reads the file and refuses a stale plan.
  // (Another file may also claim the id with an `id:` key: the change goes to the file named by it, which is the
  // entry the id names; the catalogue is not refreshed for that. A file of that name in both places is ambiguous.)
  const named = await byFileName(ctx, id);
  if (named) {
    const result = await action(named.entry);
    ctx.invalidate();
    return result;
  }
  const known = await ctx.knowledge();
  const found = lookup(known.byId, id);
  const broken = unreadableEntry(known, id) ?? ambiguousEntry(known, id);
  if (broken) return { kind: "refused", id, reason: broken };
  if (found.kind === "not-found") return { kind: "not-found", id, suggestions: found.suggestions };
  const result = await action(found.entry);
  ctx.invalidate();
  return result;
}
