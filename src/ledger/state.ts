/**
 * The ledger folded one event at a time, in (time, eventId) order: everything the lifecycle asks of
 * the ledger (decay counter inputs, confirmation counts, holdout, what each run injected or withheld,
 * recorded findings, conflicts, verifications, fingerprints) without keeping the events. Folding
 * the tail of a snapshot's state gives the same state as folding every event (test/ledger/state*).
 *
 * Frontmatter is not folded: a hand-edited `lastConfirmed` is combined at query time
 * (projections.ts), which is why an entry keeps every run that injected it since its last ledger
 * confirmation, with that run's latest injection time.
 */
import { agentKey } from "../entry/agent-name.js";
import { resetsCounter } from "./clock.js";
import { affirms, type AfterRuns, type ConfirmedPrints, type EntryFold, newEntryFold, printsDigest, printsOf, refreshesVerification, type VerificationState } from "./entry-fold.js";
import type { LedgerEvent } from "./events.js";
import { runIdKey } from "./run-id.js";
import { runKey, type RunRecord, type RunRef } from "./run-ref.js";
import { addCompounded, addFinding, addTo, allFindings, callOf, entriesOf, latestCompounded, latestFindings, newRunLog, recordedAgents, type RunLog, type RunSlot } from "./run-log.js";
import { compareEvents } from "./order.js";
import type { StateParts, Stored } from "./state-parts.js";
import { Table } from "./table.js";

export { affirms, type AfterRuns, type ConfirmedPrints, type EntryFold, newEntryFold, type VerificationState } from "./entry-fold.js";
export { addTo, callOf, newRunLog, type RunLog, type RunSlot } from "./run-log.js";
export { Table } from "./table.js";
export type { StateParts, Stored } from "./state-parts.js";

/**
 * The fold. `apply` events in (time, eventId) order (it throws on an event that sorts before the
 * last one); query at any time. The state is live: a Ledger folds new events into the same object.
 */
export class LedgerState {
  #size = 0;
  #last: LedgerEvent | undefined;
  readonly #origins: Table;
  readonly #agents: Table;
  readonly #entryIds: Table;
  readonly #runKeys: Table;
  readonly #folds: Array<EntryFold | undefined>;
  readonly #runs: Map<string, RunSlot>;
  readonly #stored: Stored | undefined;
  /** agent name → agentKey number, so the regular expression runs once per spelling. */
  readonly #agentNo = new Map<string, number>();

  constructor(parts?: StateParts) {
    this.#size = parts?.size ?? 0;
    this.#last = parts?.last;
    // Origin 0 is "none": events written outside git or before origins were recorded.
    this.#origins = parts?.origins ?? new Table([""]);
    this.#agents = parts?.agents ?? new Table();
    this.#entryIds = parts?.entryIds ?? new Table();
    this.#runKeys = parts?.runKeys ?? new Table();
    this.#folds = parts?.folds ?? [];
    this.#runs = parts?.runs ?? new Map();
    this.#stored = parts?.stored;
  }

  /** Events folded so far. */
  get size(): number {
    return this.#size;
  }

  /** The last event folded: every later event must sort after it. */
  get last(): LedgerEvent | undefined {
    return this.#last;
  }

  /** Fold one event. Throws when it sorts before the last one folded (the caller must re-fold from scratch). */
  apply(event: LedgerEvent): void {
    if (this.#last !== undefined && compareEvents(event, this.#last) < 0) {
      throw new Error(`ledger events must be folded in (time, eventId) order: ${event.eventId} at ${event.time} comes after ${this.#last.eventId} at ${this.#last.time}`);
    }
    const seq = this.#size++;
    this.#last = event;
    if (event.type === "injected") {
      this.#injected(event, seq);
      return;
    }
    const e = this.#entry(event.entry);
    e.named = true;
    let counts = true;
    if (event.type === "held-out") this.#heldOut(e, event);
    else if (event.type === "confirmed") counts = this.#confirmed(e, event, seq);
    else if (event.type === "compounded" && event.findingHash !== undefined) {
      addCompounded(this.#log(event.run), event.findingHash, this.#originNo(event.origin), e.n, seq);
    } else if (event.type === "archived") {
      if (e.lastArchived === undefined || event.time > e.lastArchived.time) e.lastArchived = event;
    } else if (event.type === "verified") e.verification = { latest: event, confirmedAfter: false };
    if (affirms(event) && (e.lastAffirmed === undefined || event.time > e.lastAffirmed.time)) e.lastAffirmed = event;
    if (e.verification !== undefined && refreshesVerification(event)) e.verification.confirmedAfter = true;
    const prints = printsOf(event);
    if (prints !== undefined) {
      e.prints = { date: event.time.slice(0, 10), prints };
      e.printsKey = undefined;
    }
    // A repeated (run, agent, finding) neither counts nor resets: it is the same confirmation again.
    if (counts && resetsCounter(event) && (e.lastReset === undefined || event.time > e.lastReset)) {
      e.lastReset = event.time;
      if (e.after === undefined) e.after = { injected: new Map(), held: new Map() };
      else {
        e.after.injected.clear();
        e.after.held.clear();
      }
      e.afterAt = undefined;
      e.afterRuns = 0;
      e.heldOnlyRuns = 0;
    }
  }

  #injected(event: Extract<LedgerEvent, { type: "injected" }>, seq: number): void {
    const slot = this.#slot(event.run);
    slot.lastInjectedSeq = seq;
    const log = this.#open(slot);
    const origin = this.#originNo(event.origin);
    const call = this.#record(log, origin, this.#agentKeyNo(event.agent));
    const run = this.#runNo(slot, event.run, origin, event.origin);
    let once = log.injectedEntries.get(origin);
    if (once === undefined) {
      once = new Set();
      log.injectedEntries.set(origin, once);
    }
    for (const id of event.entries) {
      const e = this.#entry(id);
      log.injected.push(call, e.n);
      if (!once.has(e.n)) {
        once.add(e.n);
        e.injectedRuns += 1;
      }
      e.lastInjected = event.time;
      e.lastInjectedRun = event.run;
      if (e.lastReset === undefined || event.time > e.lastReset) {
        const after = this.runsAfterReset(e);
        if (!after.injected.has(run)) {
          e.afterRuns += 1;
          // A run that withheld the entry from one agent and injected it into another counts as injected.
          if (after.held.has(run)) e.heldOnlyRuns -= 1;
        }
        after.injected.set(run, event.time);
      }
    }
  }

  #heldOut(e: EntryFold, event: Extract<LedgerEvent, { type: "held-out" }>): void {
    const slot = this.#slot(event.run);
    const log = this.#open(slot);
    const origin = this.#originNo(event.origin);
    const call = this.#record(log, origin, this.#agentKeyNo(event.agent));
    if (addTo(log.heldBy, call, e.n)) {
      log.held.push(call, e.n);
      e.withheld += 1;
      e.found += log.independent.get(`${call},${e.n}`) ?? 0;
    }
    if (e.lastReset === undefined || event.time > e.lastReset) {
      const run = this.#runNo(slot, event.run, origin, event.origin);
      const after = this.runsAfterReset(e);
      if (!after.held.has(run) && !after.injected.has(run)) e.heldOnlyRuns += 1;
      after.held.set(run, event.time);
    }
  }

  /** Count a confirmation; false when the same (run, agent, finding) was confirmed before. */
  #confirmed(e: EntryFold, event: Extract<LedgerEvent, { type: "confirmed" }>, seq: number): boolean {
    const log = this.#log(event.run);
    const call = callOf(log, this.#originNo(event.origin), this.#agentKeyNo(event.agent));
    if (event.findingHash !== undefined) {
      if (!addFinding(log, event.findingHash, call, e.n, seq)) return false;
    }
    if (event.provenance === "primed") {
      e.primed += 1;
      return true;
    }
    e.independent += 1;
    const pair = `${call},${e.n}`;
    log.independent.set(pair, (log.independent.get(pair) ?? 0) + 1);
    if (log.heldBy.get(call)?.has(e.n)) e.found += 1;
    return true;
  }

  /** The call of an injected or held-out event, recorded for runRecord. */
  #record(log: RunLog, origin: number, agent: number): number {
    const call = callOf(log, origin, agent);
    // A run has a handful of calls: a scan is cheaper than a set.
    if (!log.recorded.includes(call)) log.recorded.push(call);
    return call;
  }

  /** The fold of entry `id`; undefined when no event mentions it. */
  entry(id: string): Readonly<EntryFold> | undefined {
    const n = this.#entryIds.find(id);
    return n === undefined ? undefined : (this.#folds[n] ?? this.#decoded(n));
  }

  /** The digest of entry `id`'s latest fingerprints (entry-fold.ts `printsDigest`); undefined when it has none. Decodes no entry a snapshot holds. */
  printsDigest(id: string): string | undefined {
    const n = this.#entryIds.find(id);
    if (n === undefined) return undefined;
    const e = this.#folds[n];
    // Every entry numbered since the snapshot was loaded has its fold: the others are the snapshot's.
    return e === undefined ? this.#stored?.digest(n) : printsDigest(e);
  }

  /** The runs that injected or withheld `e` after its last reset, with their latest times (decoded from the snapshot on first need). */
  runsAfterReset(e: EntryFold): AfterRuns {
    if (e.after === undefined) {
      if (this.#stored === undefined) throw new Error("an entry's runs are encoded but the state has no snapshot to decode them from");
      e.after = this.#stored.after(e.afterAt);
      e.afterAt = undefined;
    }
    return e.after;
  }

  /** Entry ids the ledger mentions, in first-seen order (decoding nothing). */
  entryIds(): readonly string[] {
    return this.#entryIds.list;
  }

  /** Entry ids injected in `run` (into `agent`, or into any agent when omitted), unique, in first-injection order. */
  injectionsForRun(run: string | RunRef, agent?: string): string[] {
    return this.#entriesOf(typeof run === "string" ? { run } : run, agent, "injected");
  }

  /** Entry ids the holdout policy withheld in `run` (from `agent`, or from any agent when omitted). */
  heldOutForRun(run: RunRef, agent?: string): string[] {
    return this.#entriesOf(run, agent, "held");
  }

  /** True when `entryId` was injected into `agent` in `run`: a finding by that agent matching it is primed. */
  wasInjected(run: string | RunRef, agent: string, entryId: string): boolean {
    return this.injectionsForRun(run, agent).includes(entryId);
  }

  /** Whether any inject call was recorded for `run`, and for which agents (by agentKey). */
  runRecord(run: RunRef): RunRecord {
    const log = this.#peek(run.run);
    const agents = log === undefined ? undefined : recordedAgents(log, this.#refOrigin(run));
    return { injected: agents !== undefined, agents: new Set((agents ?? []).map((a) => this.#agents.at(a))) };
  }

  /** Distinct run ids (their runIdKey) with a recorded injection, most recent first (for "did you mean" on a mistyped run id). */
  knownRuns(): string[] {
    return [...this.#runs]
      .filter(([, slot]) => slot.lastInjectedSeq >= 0)
      .sort((a, b) => b[1].lastInjectedSeq - a[1].lastInjectedSeq)
      .map(([run]) => run);
  }

  /** `agentKey\0findingHash` → entry of every finding already recorded (`confirmed` with a finding hash) in `run`. */
  recordedFindings(run: RunRef): Map<string, string> {
    const out = new Map<string, string>();
    const log = this.#peek(run.run);
    if (log === undefined) return out;
    for (const [agent, hash, e] of latestFindings(log, this.#refOrigin(run))) out.set(`${this.#agents.at(agent)}\u0000${hash}`, this.#entryIds.at(e));
    return out;
  }

  /**
   * `agentKey\0findingHash\0entry` of every finding already recorded in `run` against each entry: what makes a
   * finding that cites an entry idempotent, while the same text citing another entry is a confirmation of its own.
   */
  recordedCitations(run: RunRef): Set<string> {
    const out = new Set<string>();
    const log = this.#peek(run.run);
    if (log === undefined) return out;
    for (const [agent, hash, e] of allFindings(log, this.#refOrigin(run))) out.add(`${this.#agents.at(agent)}\u0000${hash}\u0000${this.#entryIds.at(e)}`);
    return out;
  }

  /** findingHash → entry of the candidates already compounded (created or restored) in `run`. */
  compoundedFindings(run: RunRef): Map<string, string> {
    const out = new Map<string, string>();
    const log = this.#peek(run.run);
    if (log === undefined) return out;
    for (const [hash, e] of latestCompounded(log, this.#refOrigin(run))) out.set(hash, this.#entryIds.at(e));
    return out;
  }

  /** True when some event names `entry` in its `entry` field (created, confirmed, archived, …). */
  names(entry: string): boolean {
    return this.entry(entry)?.named ?? false;
  }

  /** Per entry id: the latest `verified` event and whether a confirmation came after it (decodes every entry; for one, see `entry(id)`). */
  verifications(): Map<string, VerificationState> {
    const out = new Map<string, VerificationState>();
    for (const id of this.#entryIds.list) {
      const verification = this.entry(id)?.verification;
      if (verification !== undefined) out.set(id, verification);
    }
    return out;
  }

  /** Per entry id, the latest confirmation event that carries fingerprints (decodes every entry; for one, see `entry(id)`). */
  fingerprints(): Map<string, ConfirmedPrints> {
    const out = new Map<string, ConfirmedPrints>();
    for (const id of this.#entryIds.list) {
      const prints = this.entry(id)?.prints;
      if (prints !== undefined) out.set(id, prints);
    }
    return out;
  }

  /** The parts, for the codec. Decodes nothing. */
  parts(): StateParts {
    return {
      size: this.#size,
      last: this.#last,
      origins: this.#origins,
      agents: this.#agents,
      entryIds: this.#entryIds,
      runKeys: this.#runKeys,
      folds: this.#folds,
      runs: this.#runs,
      stored: this.#stored,
    };
  }

  #entriesOf(run: RunRef, agent: string | undefined, kind: "injected" | "held"): string[] {
    const log = this.#peek(run.run);
    if (log === undefined) return [];
    const origin = this.#refOrigin(run);
    const wanted = agent === undefined ? undefined : this.#agents.find(agentKey(agent));
    if (agent !== undefined && wanted === undefined) return [];
    return entriesOf(log, kind, origin, wanted).map((e) => this.#entryIds.at(e));
  }

  /** The origin number a query matches: undefined = any; -1 = an origin never seen (only origin-less events match). */
  #refOrigin(ref: RunRef): number | undefined {
    if (ref.origin === undefined) return undefined;
    return this.#origins.find(ref.origin) ?? -1;
  }

  #originNo(origin: string | undefined): number {
    return origin ? this.#origins.no(origin) : 0;
  }

  #agentKeyNo(agent: string): number {
    let n = this.#agentNo.get(agent);
    if (n === undefined) {
      n = this.#agents.no(agentKey(agent));
      this.#agentNo.set(agent, n);
    }
    return n;
  }

  #entry(id: string): EntryFold {
    const n = this.#entryIds.no(id);
    let e = this.#folds[n] ?? this.#decoded(n);
    if (e === undefined) {
      e = newEntryFold(n);
      this.#folds[n] = e;
    }
    return e;
  }

  /** Entry number `n` decoded from the snapshot (and kept decoded); undefined when the snapshot does not have it. */
  #decoded(n: number): EntryFold | undefined {
    const e = this.#stored?.entry(n);
    if (e !== undefined) this.#folds[n] = e;
    return e;
  }

  /** The number of run (`run`, origin): the key runs are told apart by (runKey), numbered once per slot. */
  #runNo(slot: RunSlot, run: string, origin: number, name: string | undefined): number {
    slot.runNos ??= new Map();
    let n = slot.runNos.get(origin);
    if (n === undefined) {
      n = this.#runKeys.no(runKey(run, name));
      slot.runNos.set(origin, n);
    }
    return n;
  }

  /** The slot of run id `run`, by its runIdKey: two spellings of one id are one run. */
  #slot(run: string): RunSlot {
    const key = runIdKey(run);
    let slot = this.#runs.get(key);
    if (slot === undefined) {
      slot = { lastInjectedSeq: -1, log: newRunLog(), encoded: undefined, runNos: undefined };
      this.#runs.set(key, slot);
    }
    return slot;
  }

  #open(slot: RunSlot): RunLog {
    if (slot.log === undefined) {
      if (this.#stored === undefined) throw new Error("a run log is encoded but the state has no snapshot to decode it from");
      slot.log = this.#stored.run(slot.encoded);
      slot.encoded = undefined;
    }
    return slot.log;
  }

  #log(run: string): RunLog {
    return this.#open(this.#slot(run));
  }

  #peek(run: string): RunLog | undefined {
    const slot = this.#runs.get(runIdKey(run));
    return slot === undefined ? undefined : this.#open(slot);
  }
}
