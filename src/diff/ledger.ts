/** Ledger events added (or, wrongly, removed) between two revisions. Pure: works on file texts. */
import { type LedgerEvent, parseLedgerText } from "../ledger/index.js";

/** The text of one `.ledger/*.jsonl` file at one revision. */
export type LedgerText = { path: string; text: string };

export type LedgerChanges = {
  /** New events by type, sorted by type. */
  added: Record<string, number>;
  /** Events present at BASE and gone at HEAD (the ledger is append-only, so this deserves a look). */
  removed: number;
};

/** Compare the changed ledger files: events are identified by eventId, so duplicates after a union merge count once. */
export function countLedgerChanges(before: readonly LedgerText[], after: readonly LedgerText[]): LedgerChanges {
  const beforeEvents = events(before);
  const afterEvents = events(after);
  const beforeIds = new Set(beforeEvents.map((e) => e.eventId));
  const afterIds = new Set(afterEvents.map((e) => e.eventId));
  const counts = new Map<string, number>();
  for (const event of afterEvents) {
    if (!beforeIds.has(event.eventId)) counts.set(event.type, (counts.get(event.type) ?? 0) + 1);
  }
  let removed = 0;
  for (const id of beforeIds) if (!afterIds.has(id)) removed += 1;
  const added = Object.fromEntries([...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return { added, removed };
}

/** Every event in `files`, de-duplicated by eventId (first occurrence kept), in file order; bad lines are skipped as `readLedger` does. */
export function events(files: readonly LedgerText[]): LedgerEvent[] {
  const seen = new Set<string>();
  const out: LedgerEvent[] = [];
  for (const file of files) {
    for (const event of parseLedgerText(file.text, file.path).events) {
      if (seen.has(event.eventId)) continue;
      seen.add(event.eventId);
      out.push(event);
    }
  }
  return out;
}
