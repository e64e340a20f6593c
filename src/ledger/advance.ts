/**
 * Bring a folded ledger up to date with the files: parse what each file holds past what the state
 * covers, merge those tails as `readLedger` merges files (sorted by time then eventId, duplicates
 * dropped) and fold them. Correctness first: when the files no longer extend what the state saw —
 * a file replaced, shrunk or gone, an appended event that sorts before the last one folded (a union
 * merge, a clock behind another writer's), a different event reusing the last one's id — the answer
 * is "stale" and the caller folds the whole ledger from scratch.
 */
import type { LedgerEvent } from "./events.js";
import { mergeLedgerFiles, type ParsedLedgerFile } from "./read.js";
import type { Folded, StoredDuplicate } from "./snapshot.js";
import { compareEvents } from "./order.js";
import { LedgerState } from "./state.js";
import { type Coverage, type OpenedFile, planFile, readTail } from "./tail.js";

/**
 * Fold into `base` what `files` (the ledger's files, in name order) hold beyond it. Mutates
 * `base.state` only when the answer is not "stale". Without `base`, folds everything.
 */
export async function advance(base: Folded | undefined, files: readonly OpenedFile[]): Promise<Folded | "stale"> {
  const names = new Set(files.map((f) => f.name));
  if (base !== undefined) for (const name of base.files.keys()) if (!names.has(name)) return "stale";
  const plans = files.map((file) => ({ file, plan: planFile(base?.files.get(file.name), file.stat) }));
  if (plans.some((p) => p.plan.kind === "stale")) return "stale";
  const tails = await Promise.all(plans.map(async ({ file, plan }) => (plan.kind === "tail" ? readTail(file, plan) : null)));
  if (tails.some((t) => t === undefined)) return "stale";

  const parsed: ParsedLedgerFile[] = [];
  const covered = new Map<string, Coverage>();
  plans.forEach(({ file }, i) => {
    const tail = tails[i];
    const before = base?.files.get(file.name) as Coverage;
    if (!tail) {
      covered.set(file.name, before);
      return;
    }
    parsed.push({ file: file.name, events: tail.events, lines: tail.lines, warnings: [] });
    covered.set(file.name, { ...tail.coverage, warnings: [...(before?.warnings ?? []), ...tail.warnings] });
  });
  const merged = mergeLedgerFiles(parsed);
  let events = merged.events;
  const last = base?.state.last;
  const first = events[0];
  if (last !== undefined && first !== undefined) {
    const order = compareEvents(first, last);
    if (order < 0) return "stale";
    // The same line again (a retried append with a fixed id) is dropped, as a full read drops it.
    if (order === 0) {
      if (JSON.stringify(first) !== JSON.stringify(last)) return "stale";
      events = events.slice(1);
    }
  }
  const state = base?.state ?? new LedgerState();
  for (const event of events) state.apply(event as LedgerEvent);
  const duplicates: StoredDuplicate[] = [...(base?.duplicates ?? []), ...merged.warnings.map((w) => ({ name: w.file, line: w.line, rule: w.rule, message: w.message }))];
  return { state, files: covered, duplicates };
}
