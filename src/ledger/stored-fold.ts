/**
 * An entry's fold as a snapshot stored it (state-codec.ts): its counters and times are decoded at
 * once, the events it keeps (last archive, last affirmation, verification, fingerprints: most of
 * its bytes) on first use. `status` asks every entry for its counters, whether it was archived or
 * verified, and its fingerprints' digest (which the snapshot stores): it parses none of those events.
 */
import type { LedgerEvent } from "./events.js";
import type { AfterRuns, ConfirmedPrints, EntryFold, VerificationState } from "./entry-fold.js";

/** The events an entry's fold keeps, as a snapshot stores them. */
export type Extras = Partial<Pick<EntryFold, "lastArchived" | "lastAffirmed" | "verification" | "prints">>;

/** One bit per kept event: which ones a stored fold has, known without parsing them. */
export const HAS = { lastArchived: 1, lastAffirmed: 2, verification: 4, prints: 8 } as const;

/** The bits of the events `e` has. */
export function extrasMask(e: Extras): number {
  return (e.lastArchived ? HAS.lastArchived : 0) | (e.lastAffirmed ? HAS.lastAffirmed : 0) | (e.verification ? HAS.verification : 0) | (e.prints ? HAS.prints : 0);
}

/** A fold whose kept events are parsed from the snapshot when first read or written (then it behaves as any fold). */
export class StoredFold implements EntryFold {
  // Every field assigned in the same order: stored folds share one hidden class.
  n: number;
  independent = 0;
  primed = 0;
  withheld = 0;
  found = 0;
  injectedRuns = 0;
  lastReset: string | undefined = undefined;
  afterRuns = 0;
  heldOnlyRuns = 0;
  after: AfterRuns | undefined = undefined;
  afterAt: unknown = undefined;
  lastInjected: string | undefined = undefined;
  lastInjectedRun: string | undefined = undefined;
  named = false;
  printsKey: string | undefined;
  /** Which events the snapshot holds (HAS bits). */
  readonly mask: number;
  /** Parses the kept events of entry number n (shared by the folds of one snapshot); undefined once they are parsed. */
  #parse: ((n: number) => Extras) | undefined;
  #lastArchived: LedgerEvent | undefined = undefined;
  #lastAffirmed: LedgerEvent | undefined = undefined;
  #verification: VerificationState | undefined = undefined;
  #prints: ConfirmedPrints | undefined = undefined;

  constructor(n: number, mask: number, printsKey: string | undefined, parse: (n: number) => Extras) {
    this.n = n;
    this.mask = mask;
    this.printsKey = printsKey;
    this.#parse = mask === 0 ? undefined : parse;
  }

  /** True while the kept events are still the snapshot's bytes (an encoder copies them as they are). */
  get encoded(): boolean {
    return this.#parse !== undefined;
  }

  get lastArchived(): LedgerEvent | undefined {
    if (this.mask & HAS.lastArchived) this.#decode();
    return this.#lastArchived;
  }
  set lastArchived(value: LedgerEvent | undefined) {
    this.#decode();
    this.#lastArchived = value;
  }

  get lastAffirmed(): LedgerEvent | undefined {
    if (this.mask & HAS.lastAffirmed) this.#decode();
    return this.#lastAffirmed;
  }
  set lastAffirmed(value: LedgerEvent | undefined) {
    this.#decode();
    this.#lastAffirmed = value;
  }

  get verification(): VerificationState | undefined {
    if (this.mask & HAS.verification) this.#decode();
    return this.#verification;
  }
  set verification(value: VerificationState | undefined) {
    this.#decode();
    this.#verification = value;
  }

  get prints(): ConfirmedPrints | undefined {
    if (this.mask & HAS.prints) this.#decode();
    return this.#prints;
  }
  set prints(value: ConfirmedPrints | undefined) {
    this.#decode();
    this.#prints = value;
  }

  #decode(): void {
    const parse = this.#parse;
    if (parse === undefined) return;
    this.#parse = undefined;
    const x = parse(this.n);
    this.#lastArchived = x.lastArchived;
    this.#lastAffirmed = x.lastAffirmed;
    this.#verification = x.verification;
    this.#prints = x.prints;
  }
}
