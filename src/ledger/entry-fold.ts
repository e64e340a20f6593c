/** What the fold keeps per entry (state.ts), and which events feed which part of it. */
import { createHash } from "node:crypto";
import type { AnchorFingerprint, LedgerEvent, VerifiedEvent } from "./events.js";

/** The fingerprints of an entry's last fingerprinted confirmation, with the day it happened. */
export type ConfirmedPrints = { date: string; prints: AnchorFingerprint[] };

/** An entry's latest `verified` event, and whether a confirmation came after it. */
export type VerificationState = { latest: VerifiedEvent; confirmedAfter: boolean };

/** What the fold keeps per entry id. Read-only outside this module. */
export type EntryFold = {
  /** The entry's number in the state's table of entry ids. */
  n: number;
  /** Counted `confirmed` events by provenance (a repeated (run, agent, finding) counts once). */
  independent: number;
  primed: number;
  /** Distinct (run, agent) pairs that had the entry withheld, and independent confirmations by such a pair. */
  withheld: number;
  found: number;
  /** Distinct runs that ever injected it. */
  injectedRuns: number;
  /** Time of the latest counter-resetting event (`resetsCounter`). */
  lastReset?: string;
  /** Distinct runs that injected the entry after `lastReset`: the decay counter when the frontmatter adds nothing. */
  afterRuns: number;
  /** Distinct runs that withheld it after `lastReset` without injecting it into any agent. */
  heldOnlyRuns: number;
  /** Those runs with their latest times (for a hand-edited date later than `lastReset`); see `LedgerState.runsAfterReset`. */
  after: AfterRuns | undefined;
  /** Where `after` is in the snapshot the entry was decoded from (its entry number there), until it is needed. */
  afterAt: unknown;
  lastInjected?: string;
  lastInjectedRun?: string;
  /** Some event names the entry in its `entry` field (not only in an injection's list). */
  named: boolean;
  /** The earliest of the latest-timed `archived` events (conflicts). */
  lastArchived?: LedgerEvent;
  /** The earliest of the latest-timed affirming events (`affirms`; conflicts). */
  lastAffirmed?: LedgerEvent;
  verification?: VerificationState;
  prints?: ConfirmedPrints;
  /** `printsDigest` of `prints`, once computed (or as a snapshot stored it); reset whenever `prints` changes. */
  printsKey: string | undefined;
};

/** Run number → latest time it injected (or withheld) the entry, for runs after the entry's last reset. */
export type AfterRuns = { injected: Map<number, string>; held: Map<number, string> };

export function newEntryFold(n: number): EntryFold {
  // Every field from the start, undefined or not: folds then share one hidden class, and the fold's
  // property accesses stay monomorphic (adding optional fields later made it three times slower).
  return {
    n,
    independent: 0,
    primed: 0,
    withheld: 0,
    found: 0,
    injectedRuns: 0,
    lastReset: undefined,
    afterRuns: 0,
    heldOnlyRuns: 0,
    after: { injected: new Map(), held: new Map() },
    afterAt: undefined,
    lastInjected: undefined,
    lastInjectedRun: undefined,
    named: false,
    lastArchived: undefined,
    lastAffirmed: undefined,
    verification: undefined,
    prints: undefined,
    printsKey: undefined,
  };
}

/**
 * sha256 (first 16 hex) of the JSON of an entry's latest fingerprints; undefined when it has none. What an
 * anchor result cached for the entry was computed from (check/catalogue-lint.ts): a snapshot stores it, so
 * asking it of every entry decodes no fingerprint.
 */
export function printsDigest(e: EntryFold): string | undefined {
  if (e.printsKey !== undefined) return e.printsKey;
  const prints = e.prints;
  if (prints === undefined) return undefined;
  e.printsKey = digestOf(JSON.stringify(prints));
  return e.printsKey;
}

/** The digest of fingerprints as their JSON text. */
export function digestOf(printsJson: string): string {
  return createHash("sha256").update(printsJson).digest("hex").slice(0, 16);
}

/** Events whose confirmation a merge conflict is about: an independent, manual or hand confirmation, or a restore. */
export function affirms(event: LedgerEvent): boolean {
  return (event.type === "confirmed" && event.provenance === "independent") || event.type === "manual-confirmed" || event.type === "hand-confirmed" || event.type === "restored";
}

/** Events after which a failed verification no longer warns (src/verify/records.ts). */
export function refreshesVerification(event: LedgerEvent): boolean {
  return event.type === "manual-confirmed" || event.type === "restored" || (event.type === "confirmed" && event.provenance === "independent");
}

/** Events whose fingerprints are the entry's current ones (src/anchors/fingerprint.ts). */
export function printsOf(event: LedgerEvent): AnchorFingerprint[] | undefined {
  if (event.type === "manual-confirmed" || (event.type === "confirmed" && event.provenance === "independent")) return event.fingerprints;
  return undefined;
}
