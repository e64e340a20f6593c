/**
 * Lifecycle conflicts: states two branches can leave after a merge that no single command would
 * produce. Each says what happened and what to do. Pure over the entries (id, state, lastConfirmed,
 * archived) and the ledger.
 */
import { type LedgerEvent, ledgerState, type LedgerSource } from "../ledger/index.js";
import type { EntryFold } from "../ledger/state.js";
import type { Conflict } from "../types/status.js";

export type { Conflict, ConflictKind } from "../types/status.js";

export type ConflictEntry = { id: string; state: "active" | "archived"; frontmatter: { lastConfirmed?: unknown; archived?: unknown } };

type Confirmation = { time: string; what: string };

function describe(event: LedgerEvent): string | undefined {
  const where = "origin" in event && event.origin ? ` on ${event.origin}` : "";
  const who = event.actor ? ` by ${event.actor}` : "";
  switch (event.type) {
    case "confirmed":
      return event.provenance === "independent" ? `independently confirmed in run ${event.run} by agent ${event.agent}${where}` : undefined;
    case "manual-confirmed":
      return `confirmed by hand${who}`;
    case "hand-confirmed":
      return `lastConfirmed edited to ${event.date}`;
    case "restored":
      return `restored${who}${where}`;
    default:
      return undefined;
  }
}

/** The latest confirmation of an entry (independent, manual, by hand, or a restore: state.ts `affirms`), described. */
function lastConfirmation(event: LedgerEvent | undefined): Confirmation | undefined {
  const what = event === undefined ? undefined : describe(event);
  return what === undefined ? undefined : { time: (event as LedgerEvent).time, what };
}

export function findConflicts(entries: readonly ConflictEntry[], events: LedgerSource): Conflict[] {
  const ledger = ledgerState(events);
  const out: Conflict[] = [];
  for (const entry of entries) {
    const fold = ledger.entry(entry.id);
    const archived = fold?.lastArchived;
    // Every conflict but a frontmatter date's involves an archive event: the last confirmation (an event a snapshot
    // keeps encoded until read) is only looked at then.
    const confirmed = archived ? lastConfirmation(fold?.lastAffirmed) : undefined;
    const archivedWhere = archived && "origin" in archived && archived.origin ? ` on ${archived.origin}` : "";
    if (entry.state === "archived") {
      const date = typeof entry.frontmatter.lastConfirmed === "string" ? entry.frontmatter.lastConfirmed : undefined;
      const archivedDay = typeof entry.frontmatter.archived === "string" ? entry.frontmatter.archived : archived?.time.slice(0, 10);
      const unaware = archived && fold ? unawareArchive(ledger, fold, archived) : undefined;
      if (archived && confirmed && confirmed.time > archived.time) {
        out.push({
          id: entry.id,
          kind: "confirmed-after-archive",
          message: `archived${archivedWhere} at ${archived.time}, but ${confirmed.what} after that (${confirmed.time}): the two sides of a merge disagree`,
          fix: `if the pattern still holds, cairn restore ${entry.id} (it was re-found after it was archived); if not, nothing — it stays archived`,
        });
      } else if (archived && unaware) {
        const { counted, recounted, reset } = unaware;
        const what = confirmed && confirmed.time === reset ? confirmed.what : "confirmed";
        out.push({
          id: entry.id,
          kind: "archived-unaware-of-confirmation",
          message: `archived${archivedWhere} at ${archived.time} by decay after ${counted} runs, but it was ${what} at ${reset}, before that, on the other side of a merge: counted from that confirmation, ${recounted} of those runs remain — the side that archived it did not know`,
          fix: `cairn restore ${entry.id} (it was re-found before it was archived); if the pattern no longer holds, nothing — it stays archived`,
        });
      } else if (date && archivedDay && date > archivedDay) {
        out.push({
          id: entry.id,
          kind: "confirmed-after-archive",
          message: `archived on ${archivedDay}, but its lastConfirmed (${date}) is later: a merge kept a confirmation made after the archive`,
          fix: `if the pattern still holds, cairn restore ${entry.id}; if not, nothing — it stays archived`,
        });
      }
    } else if (archived && (!confirmed || archived.time > confirmed.time) && !(fold?.lastReset !== undefined && fold.lastReset > archived.time)) {
      // (An entry created again after the archive — retracted, then `cairn new` or `compound` with its id — is a new file, not a kept copy.)
      out.push({
        id: entry.id,
        kind: "archived-but-active",
        message: `the ledger says it was archived${archivedWhere} at ${archived.time}, but the file is active here (a merge kept the active copy)`,
        fix: `cairn confirm ${entry.id} to keep it active; otherwise the next cairn decay archives it again once it is past its limit`,
      });
    }
  }
  return out;
}

/**
 * An archive by decay that the merged ledger does not bear out: the archiving side counted the runs its `reason`
 * names (`injected in 3 runs`, `withheld in 2 runs after 8 injected runs`); counted on the merged ledger from the
 * counter's last reset up to the archive, fewer remain, so a confirmation it did not know (another branch's) lies in
 * between. Undefined when the archive stands, or when its reason names no count (an older or a hand-written one).
 * The archiving side's own count is the measure, not today's `decayAfterRuns`, which may have changed since.
 */
function unawareArchive(ledger: ReturnType<typeof ledgerState>, fold: EntryFold, archived: LedgerEvent): { counted: number; recounted: number; reset: string } | undefined {
  if (archived.type !== "archived" || !archived.reason.startsWith("decayed") || fold.lastReset === undefined || fold.lastReset >= archived.time) return undefined;
  const held = /withheld in (\d+) runs after (\d+) injected runs/.exec(archived.reason);
  const injected = held ? undefined : /injected in (\d+) runs/.exec(archived.reason);
  const counted = held ? Number(held[1]) + Number(held[2]) : injected ? Number(injected[1]) : Number.NaN;
  if (!Number.isFinite(counted)) return undefined;
  const after = ledger.runsAfterReset(fold);
  const runs = new Set<number>();
  for (const map of [after.injected, after.held]) for (const [run, time] of map) if (time <= archived.time) runs.add(run);
  return runs.size < counted ? { counted, recounted: runs.size, reset: fold.lastReset } : undefined;
}
