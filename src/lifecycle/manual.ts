/** Manual operations (lifecycle rule 4): confirm, retract, restore — and archive, shared with decay/supersede. */
import { unlink } from "node:fs/promises";
import path from "node:path";
import { todayUtc } from "../entry/parse.js";
import type { Entry } from "../entry/types.js";
import type { NewEvent } from "../ledger/index.js";
import { editEntryFile, moveEntryFile } from "../store/mutate.js";
import type { Layout } from "../store/layout.js";
import { suggest } from "./suggest.js";

/** Appends events to the ledger with the knowledge base's clock. */
export type AppendEvents = (events: NewEvent[]) => Promise<unknown>;

export type Lookup = { kind: "found"; entry: Entry } | { kind: "not-found"; id: string; suggestions: string[] };

/** Find an entry by id; "not found" is a value carrying close ids as suggestions. */
export function lookup(byId: Map<string, Entry>, id: string): Lookup {
  const entry = byId.get(id);
  if (entry) return { kind: "found", entry };
  const suggestions = suggest(id, byId.keys());
  return { kind: "not-found", id, suggestions };
}

export type ManualResult =
  | { kind: "done"; id: string; path: string; changed: boolean }
  | { kind: "not-found"; id: string; suggestions: string[] }
  | { kind: "refused"; id: string; reason: string };

export async function confirmEntry(layout: Layout, append: AppendEvents, entry: Entry, today = todayUtc()): Promise<ManualResult> {
  if (entry.state === "archived") {
    return { kind: "refused", id: entry.id, reason: `"${entry.id}" is archived; use \`cairn restore ${entry.id}\` to bring it back (restore also confirms it)` };
  }
  const changed = await editEntryFile(path.join(layout.root, entry.path), [
    { op: "set", key: "lastConfirmed", value: today },
    { op: "set", key: "provenance", value: "independent" },
  ]);
  await append([{ type: "manual-confirmed", entry: entry.id }]);
  return { kind: "done", id: entry.id, path: entry.path, changed };
}

export async function retractEntry(layout: Layout, append: AppendEvents, entry: Entry): Promise<ManualResult> {
  await unlink(path.join(layout.root, entry.path));
  await append([{ type: "retracted", entry: entry.id }]);
  return { kind: "done", id: entry.id, path: entry.path, changed: true };
}

export async function restoreEntry(layout: Layout, append: AppendEvents, entry: Entry, reason: string, today = todayUtc(), run?: string, agent?: string): Promise<ManualResult> {
  if (entry.state !== "archived") return { kind: "refused", id: entry.id, reason: `"${entry.id}" is already active (${entry.path})` };
  const target = await moveEntryFile(path.join(layout.root, entry.path), layout.knowledge, [
    { op: "remove", key: "archived" },
    { op: "remove", key: "archivedReason" },
    { op: "set", key: "lastConfirmed", value: today },
    { op: "set", key: "provenance", value: "independent" },
  ]);
  await append([{ type: "restored", entry: entry.id, reason, ...(run ? { run } : {}), ...(agent ? { agent } : {}) }]);
  return { kind: "done", id: entry.id, path: path.relative(layout.root, target).split(path.sep).join("/"), changed: true };
}

export async function archiveEntry(layout: Layout, append: AppendEvents, entry: Entry, reason: string, today = todayUtc(), run?: string): Promise<ManualResult> {
  if (entry.state === "archived") return { kind: "refused", id: entry.id, reason: `"${entry.id}" is already archived` };
  const target = await moveEntryFile(path.join(layout.root, entry.path), layout.archive, [
    { op: "set", key: "archived", value: today },
    { op: "set", key: "archivedReason", value: reason },
  ]);
  await append([{ type: "archived", entry: entry.id, reason, ...(run ? { run } : {}) }]);
  return { kind: "done", id: entry.id, path: path.relative(layout.root, target).split(path.sep).join("/"), changed: true };
}
