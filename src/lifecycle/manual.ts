/** Manual operations (lifecycle rule 4): confirm, retract, restore — and archive, shared with decay/supersede. */
import { unlink } from "node:fs/promises";
import path from "node:path";
import { todayUtc } from "../entry/parse.js";
import type { Entry } from "../entry/types.js";
import type { NewEvent } from "../ledger/index.js";
import { editEntryFile, moveEntryFile } from "../store/mutate.js";
import type { Layout } from "../store/layout.js";

/** Appends events to the ledger with the knowledge base's clock. */
export type AppendEvents = (events: NewEvent[]) => Promise<unknown>;

export type Lookup = { kind: "found"; entry: Entry } | { kind: "not-found"; id: string; suggestions: string[] };

/** Find an entry by id; "not found" is a value carrying close ids as suggestions. */
export function lookup(byId: Map<string, Entry>, id: string): Lookup {
  const entry = byId.get(id);
  if (entry) return { kind: "found", entry };
  const needle = id.toLowerCase();
  const suggestions = [...byId.keys()]
    .map((candidate) => ({ candidate, d: editDistance(needle, candidate.toLowerCase()) }))
    .filter(({ candidate, d }) => d <= Math.max(2, Math.floor(id.length / 3)) || candidate.includes(needle))
    .sort((a, b) => a.d - b.d || a.candidate.localeCompare(b.candidate))
    .slice(0, 3)
    .map(({ candidate }) => candidate);
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

export async function restoreEntry(layout: Layout, append: AppendEvents, entry: Entry, reason: string, today = todayUtc(), run?: string): Promise<ManualResult> {
  if (entry.state !== "archived") return { kind: "refused", id: entry.id, reason: `"${entry.id}" is already active (${entry.path})` };
  const target = await moveEntryFile(path.join(layout.root, entry.path), layout.knowledge, [
    { op: "remove", key: "archived" },
    { op: "remove", key: "archivedReason" },
    { op: "set", key: "lastConfirmed", value: today },
    { op: "set", key: "provenance", value: "independent" },
  ]);
  await append([{ type: "restored", entry: entry.id, reason, ...(run ? { run } : {}) }]);
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

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length]!;
}
