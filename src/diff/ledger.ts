/**
 * Ledger events added between two revisions, and the ones a change rewrote or removed. Pure: works on file texts.
 * The ledger is append-only (DESIGN.md, "The ledger"): decay counters are projections of it, so a line edited in place
 * (an injection moved to another entry id, a date changed) or deleted changes an entry's fate without touching the
 * entry. Such a change is an error, not a warning.
 */
import { diagnostic, type Diagnostic } from "../entry/diagnostic.js";
import { type LedgerEvent, parseLedgerText } from "../ledger/index.js";
import { canonical } from "./plan.js";

/** The text of one `.ledger/*.jsonl` file at one revision. */
export type LedgerText = { path: string; text: string };

/** An event HEAD adds, with its file and line (the first copy when a merge repeated it). */
export type AddedEvent = { event: LedgerEvent; file: string; line: number };

export type LedgerChanges = {
  /** New events by type, sorted by type. */
  added: Record<string, number>;
  /** The new events themselves, in HEAD's file order. */
  events: AddedEvent[];
  /** Events present at BASE and gone at HEAD. */
  removed: number;
  /** Events present at BASE whose line at HEAD says something else (same eventId, other content). */
  rewritten: number;
  /** One error per rewritten event (at its HEAD line) and one per ledger file that lost events (rules `ledger-event-rewritten`, `ledger-event-removed`). */
  problems: Diagnostic[];
};

type Located = { event: LedgerEvent; text: string; file: string; line: number };

/**
 * Compare the changed ledger files by event id and content, never by position: a union merge may reorder lines and
 * repeat identical ones (counted once). An event whose id is known at BASE is fine at HEAD only with BASE's content.
 */
export function countLedgerChanges(before: readonly LedgerText[], after: readonly LedgerText[]): LedgerChanges {
  const baseById = groupById(located(before));
  const headById = groupById(located(after));
  const counts = new Map<string, number>();
  const events: AddedEvent[] = [];
  for (const [id, copies] of headById) {
    if (baseById.has(id)) continue;
    const { event, file, line } = copies[0]!;
    counts.set(event.type, (counts.get(event.type) ?? 0) + 1);
    events.push({ event, file, line });
  }
  const problems: Diagnostic[] = [];
  const lost = new Map<string, Located[]>();
  let rewritten = 0;
  for (const [id, was] of baseById) {
    const now = headById.get(id);
    if (!now) {
      const file = was[0]!.file;
      lost.set(file, [...(lost.get(file) ?? []), was[0]!]);
      continue;
    }
    const texts = new Set(was.map((w) => w.text));
    for (const copy of now) {
      if (texts.has(copy.text)) continue;
      rewritten += 1;
      problems.push(
        diagnostic(
          copy.file,
          "ledger-event-rewritten",
          "error",
          `ledger event ${id} (${copy.event.type}) was rewritten in place: ${changes(was[0]!.event, copy.event)}; expected the line unchanged, as at BASE (${was[0]!.file}:${was[0]!.line}) — the ledger is append-only and decay counters are computed from it: restore the line and append a new event instead`,
          { line: copy.line, column: 1 },
        ),
      );
    }
  }
  let removed = 0;
  for (const [file, gone] of lost) {
    removed += gone.length;
    const first = gone[0]!;
    const more = gone.length === 1 ? "" : ` and ${gone.length - 1} more`;
    problems.push(
      diagnostic(
        file,
        "ledger-event-removed",
        "error",
        `${gone.length} ledger event${gone.length === 1 ? " was" : "s were"} removed from ${file}: ${first.event.eventId} (${first.event.type}, line ${first.line} at BASE)${more}; the ledger is append-only and decay counters are computed from it — restore the deleted lines (e.g. git checkout BASE -- ${file}, then append the new events again)`,
      ),
    );
  }
  const added = Object.fromEntries([...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return { added, events, removed, rewritten, problems };
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

/** Every valid event with its file, line and canonical text (keys sorted, so a reformatted line is the same event). */
function located(files: readonly LedgerText[]): Located[] {
  const out: Located[] = [];
  for (const file of files) {
    const parsed = parseLedgerText(file.text, file.path);
    parsed.events.forEach((event, i) => out.push({ event, text: canonical(event), file: file.path, line: parsed.lines[i] ?? 1 }));
  }
  return out;
}

function groupById(list: readonly Located[]): Map<string, Located[]> {
  const byId = new Map<string, Located[]>();
  for (const item of list) {
    const copies = byId.get(item.event.eventId);
    if (copies) copies.push(item);
    else byId.set(item.event.eventId, [item]);
  }
  return byId;
}

/** `key old → new` for every field that differs, values shortened. */
function changes(was: LedgerEvent, now: LedgerEvent): string {
  const a = was as unknown as Record<string, unknown>;
  const b = now as unknown as Record<string, unknown>;
  const show = (value: unknown) => {
    const text = value === undefined ? "(absent)" : JSON.stringify(value);
    return text.length > 80 ? `${text.slice(0, 79)}…` : text;
  };
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => canonical(a[k]) !== canonical(b[k])).sort();
  return keys.map((k) => `${k} ${show(a[k])} → ${show(b[k])}`).join("; ");
}
