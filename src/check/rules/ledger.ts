/**
 * The files next to the entries that `check` reads too: the ledger (a pull request can add, forge or mangle its
 * lines), `knowledge/.pending/` (local change logs, which must never arrive in a commit) and `.cairn/` (derived and
 * local, never committed). Reported by `check` over
 * the whole knowledge directory (src/kb/check.ts); every other command says the ledger's problems as warnings.
 */
import { type RuleModule, rulesOf } from "./types.js";

export const ledgerRules: RuleModule = {
  name: "ledger",
  // Not entry files: nothing to gate, and no entry can carry a disable for them.
  rules: [
    ...rulesOf("ledger", { gate: false, inline: false }, [
      ["ledger-conflict-marker", "error", "a git merge conflict marker in a ledger file: merges are not by union, and the next one may lose events"],
      ["ledger-invalid-line", "warning", "a ledger line that is not an event (not JSON, a missing field, dated ahead of the clock): skipped"],
      ["ledger-torn-line", "warning", "a ledger line an interrupted write left incomplete: skipped"],
      ["ledger-unknown-version", "warning", "a ledger event of a newer schema than this cairn reads: skipped"],
      ["ledger-duplicate-id", "warning", "two ledger events with one id and different contents: the first is kept"],
      ["ledger-not-a-file", "error", "a ledger file name that is a link, a directory or anything but a regular file: never read, and appends to it fail"],
      ["pending-committed", "error", "a file in knowledge/.pending/ (a change log or lock, local to one machine) committed to git"],
      ["cache-tracked", "error", "a file in .cairn/ (the derived index, caches and locks, local to one machine) committed to git"],
    ]),
    ...rulesOf("ledger", { gate: false, inline: false, fatal: true }, [
      // Found by `cairn diff` and the GitHub Action, which compare two revisions; not configurable, or a pull request
      // could switch them off in the same change that rewrites history.
      ["ledger-event-rewritten", "error", "a ledger event a change rewrote in place (same eventId, other content): the ledger is append-only"],
      ["ledger-event-removed", "error", "ledger events a change deleted: the ledger is append-only"],
      ["knowledge-dir-moved", "warning", "the knowledge directory (or its archive or ledger) kept elsewhere at HEAD than at BASE: a moved knowledgeDir, a link swapped or retargeted"],
      ["knowledge-dir-submodule", "error", "a git submodule holding, or inside, the knowledge directory at either revision: cairn cannot see its entries, so no diff reviews them (a warning when it is pinned to the same commit at both)"],
      ["ledger-decay-pushed", "warning", "ledger events a change appended that push an active entry to or past its decay limit: inject withholds it, the next record or decay archives it"],
    ]),
  ],
};
