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
import type { AnchorFingerprint, LedgerEvent, VerifiedEvent } from "./events.js";
import { runKey, type RunRecord, type RunRef } from "./run-ref.js";

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
  /** Where `after` is in the snapshot the entry was decoded from, until it is needed. */
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
};

/** Run number → latest time it injected (or withheld) the entry, for runs after the entry's last reset. */
export type AfterRuns = { injected: Map<number, string>; held: Map<number, string> };

/**
 * Events in one run id, as interned numbers. A "call" is an (origin, agent) pair of the run,
 * numbered in first-seen order (origin 0 = none); keys that join numbers use ",".
 */
export type RunLog = {
  /** `origin * CALL_AGENTS + agent` → call number. */
  callNo: Map<number, number>;
  /** Per call number, its origin and agent numbers (flat pairs). */
  calls: number[];
  /** Calls with an injected or held-out event, in first-seen order (an inject call that gave nothing counts). */
  recorded: number[];
  /** [call, entry] of every injection, in order; repeats are kept (queries skip them). */
  injected: number[];
  /** origin → entries injected under it in this run: an entry counts once per run. */
  injectedEntries: Map<number, Set<number>>;
  /** [call, entry] of every distinct withholding, first-seen order. */
  held: number[];
  /** call → entries withheld from it. */
  heldBy: Map<number, Set<number>>;
  /** `call,hash,entry` → sequence number of the latest such `confirmed` event. */
  findings: Map<string, number>;
  /** `call,entry` → counted independent confirmations. */
  independent: Map<string, number>;
  /** `origin,hash` → [entry, sequence number] of the latest `compounded` event. */
  compounded: Map<string, [number, number]>;
};

/** A run id's log, decoded on first use (a snapshot holds thousands; a command asks about one). */
export type RunSlot = { lastInjectedSeq: number; log: RunLog | undefined; encoded: unknown; runNos: Map<number, number> | undefined };

/** What a snapshot keeps encoded until first use (state-codec.ts): a command reads a few entries and one run of thousands. */
export type Stored = {
  /** Decode the fold of the snapshot's entry number `n`. */
  entry(n: number): EntryFold;
  /** Decode a run log from what its slot holds. */
  run(encoded: unknown): RunLog;
  /** Decode an entry's after-reset runs from what its `afterAt` holds. */
  after(encoded: unknown): AfterRuns;
};

/** Agents per origin in a call key: origins and agents are numbered below this (2^26), so a key stays an exact integer. */
export const CALL_AGENTS = 2 ** 26;

/** Strings numbered in first-seen order; from a snapshot, loaded on first use. */
export class Table {
  #list: string[] | undefined;
  #index: Map<string, number> | undefined;
  #load: (() => readonly string[]) | undefined;

  constructor(list: readonly string[] | (() => readonly string[]) = []) {
    if (typeof list === "function") this.#load = list;
    else this.#fill(list);
  }

  /** False while a table from a snapshot has not been needed yet. */
  get loaded(): boolean {
    return this.#list !== undefined;
  }

  /** Every string, by number. */
  get list(): readonly string[] {
    return this.#ready().list;
  }

  no(value: string): number {
    const { list, index } = this.#ready();
    let n = index.get(value);
    if (n === undefined) {
      n = list.length;
      list.push(value);
      index.set(value, n);
    }
    return n;
  }

  find(value: string): number | undefined {
    return this.#ready().index.get(value);
  }

  at(n: number): string {
    return this.#ready().list[n] as string;
  }

  #fill(list: readonly string[]): void {
    this.#list = [];
    this.#index = new Map();
    for (const value of list) {
      if (!this.#index.has(value)) this.#index.set(value, this.#list.length);
      this.#list.push(value);
    }
  }

  #ready(): { list: string[]; index: Map<string, number> } {
    if (this.#list === undefined) {
      this.#fill((this.#load as () => readonly string[])());
      this.#load = undefined;
    }
    return { list: this.#list as string[], index: this.#index as Map<string, number> };
  }
}

/** Events whose confirmation a merge conflict is about: an independent, manual or hand confirmation, or a restore. */
export function affirms(event: LedgerEvent): boolean {
  return (event.type === "confirmed" && event.provenance === "independent") || event.type === "manual-confirmed" || event.type === "hand-confirmed" || event.type === "restored";
}

/** Events after which a failed verification no longer warns (src/verify/records.ts). */
function refreshesVerification(event: LedgerEvent): boolean {
  return event.type === "manual-confirmed" || event.type === "restored" || (event.type === "confirmed" && event.provenance === "independent");
}

/** Events whose fingerprints are the entry's current ones (src/anchors/fingerprint.ts). */
function printsOf(event: LedgerEvent): AnchorFingerprint[] | undefined {
  if (event.type === "manual-confirmed" || (event.type === "confirmed" && event.provenance === "independent")) return event.fingerprints;
  return undefined;
}

/** (time, eventId) order: the order `readLedger` returns and the fold requires. */
export function compareEvents(a: Pick<LedgerEvent, "time" | "eventId">, b: Pick<LedgerEvent, "time" | "eventId">): number {
  if (a.time !== b.time) return a.time < b.time ? -1 : 1;
  if (a.eventId !== b.eventId) return a.eventId < b.eventId ? -1 : 1;
  return 0;
}

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
  };
}

export function newRunLog(): RunLog {
  return { callNo: new Map(), calls: [], recorded: [], injected: [], injectedEntries: new Map(), held: [], heldBy: new Map(), findings: new Map(), independent: new Map(), compounded: new Map() };
}

/** The number of call (origin, agent) in `log`, numbering it when new. */
export function callOf(log: RunLog, origin: number, agent: number): number {
  if (origin >= CALL_AGENTS || agent >= CALL_AGENTS) throw new Error(`more than ${CALL_AGENTS} distinct agents or origins in one ledger`);
  const key = origin * CALL_AGENTS + agent;
  let call = log.callNo.get(key);
  if (call === undefined) {
    call = log.callNo.size;
    log.callNo.set(key, call);
    log.calls.push(origin, agent);
  }
  return call;
}

/** Add `value` to the set under `key`; true when it was not there. */
export function addTo(map: Map<number, Set<number>>, key: number, value: number): boolean {
  let set = map.get(key);
  if (set === undefined) {
    set = new Set();
    map.set(key, set);
  }
  if (set.has(value)) return false;
  set.add(value);
  return true;
}

/** The parts of a state, as the codec (state-codec.ts) reads and writes them. */
export type StateParts = {
  size: number;
  last: LedgerEvent | undefined;
  origins: Table;
  agents: Table;
  /** Entry ids by number; the first `storedEntries` are in `stored`, until decoded into `entries`. */
  entryIds: Table;
  hashes: Table;
  runKeys: Table;
  /** The decoded entry folds by id. */
  entries: Map<string, EntryFold>;
  runs: Map<string, RunSlot>;
  stored: Stored | undefined;
};

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
  readonly #hashes: Table;
  readonly #runKeys: Table;
  readonly #entries: Map<string, EntryFold>;
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
    this.#hashes = parts?.hashes ?? new Table();
    this.#runKeys = parts?.runKeys ?? new Table();
    this.#entries = parts?.entries ?? new Map();
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
      this.#log(event.run).compounded.set(`${this.#originNo(event.origin)},${this.#hashes.no(event.findingHash)}`, [e.n, seq]);
    } else if (event.type === "archived") {
      if (e.lastArchived === undefined || event.time > e.lastArchived.time) e.lastArchived = event;
    } else if (event.type === "verified") e.verification = { latest: event, confirmedAfter: false };
    if (affirms(event) && (e.lastAffirmed === undefined || event.time > e.lastAffirmed.time)) e.lastAffirmed = event;
    if (e.verification !== undefined && refreshesVerification(event)) e.verification.confirmedAfter = true;
    const prints = printsOf(event);
    if (prints !== undefined) e.prints = { date: event.time.slice(0, 10), prints };
    // A repeated (run, agent, finding) neither counts nor resets: it is the same confirmation again.
    if (counts && resetsCounter(event) && (e.lastReset === undefined || event.time > e.lastReset)) {
      e.lastReset = event.time;
      e.after = { injected: new Map(), held: new Map() };
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
      const key = `${call},${this.#hashes.no(event.findingHash)},${e.n}`;
      const repeated = log.findings.has(key);
      log.findings.set(key, seq);
      if (repeated) return false;
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
    return this.#entries.get(id) ?? this.#decoded(id);
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
    const record: RunRecord = { injected: false, agents: new Set() };
    const log = this.#peek(run.run);
    if (log === undefined) return record;
    const origin = this.#refOrigin(run);
    for (const call of log.recorded) {
      if (!matches(log.calls[2 * call], origin)) continue;
      record.injected = true;
      record.agents.add(this.#agents.at(log.calls[2 * call + 1] as number));
    }
    return record;
  }

  /** Distinct run ids with a recorded injection, most recent first (for "did you mean" on a mistyped run id). */
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
    const origin = this.#refOrigin(run);
    const latest = new Map<string, number>();
    for (const [key, seq] of log.findings) {
      const [call, h, e] = numbers(key);
      if (!matches(log.calls[2 * call], origin)) continue;
      const finding = `${this.#agents.at(log.calls[2 * call + 1] as number)}\u0000${this.#hashes.at(h)}`;
      if ((latest.get(finding) ?? -1) > seq) continue;
      latest.set(finding, seq);
      out.set(finding, this.#entryIds.at(e));
    }
    return out;
  }

  /** findingHash → entry of the candidates already compounded (created or restored) in `run`. */
  compoundedFindings(run: RunRef): Map<string, string> {
    const out = new Map<string, string>();
    const log = this.#peek(run.run);
    if (log === undefined) return out;
    const origin = this.#refOrigin(run);
    const latest = new Map<string, number>();
    for (const [key, [e, seq]] of log.compounded) {
      const [o, h] = numbers(key);
      if (!matches(o, origin)) continue;
      const hash = this.#hashes.at(h);
      if ((latest.get(hash) ?? -1) > seq) continue;
      latest.set(hash, seq);
      out.set(hash, this.#entryIds.at(e));
    }
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
      hashes: this.#hashes,
      runKeys: this.#runKeys,
      entries: this.#entries,
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
    const ids = new Set<string>();
    const pairs = log[kind];
    for (let i = 0; i < pairs.length; i += 2) {
      const call = pairs[i] as number;
      if (matches(log.calls[2 * call], origin) && (wanted === undefined || log.calls[2 * call + 1] === wanted)) ids.add(this.#entryIds.at(pairs[i + 1] as number));
    }
    return [...ids];
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
    let e = this.#entries.get(id) ?? this.#decoded(id);
    if (e === undefined) {
      e = newEntryFold(this.#entryIds.no(id));
      this.#entries.set(id, e);
    }
    return e;
  }

  /** Entry `id` decoded from the snapshot (and kept decoded); undefined when the snapshot does not have it. */
  #decoded(id: string): EntryFold | undefined {
    if (this.#stored === undefined) return undefined;
    const n = this.#entryIds.find(id);
    // Every entry numbered since the snapshot was loaded is in #entries already.
    if (n === undefined) return undefined;
    const e = this.#stored.entry(n);
    this.#entries.set(id, e);
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

  #slot(run: string): RunSlot {
    let slot = this.#runs.get(run);
    if (slot === undefined) {
      slot = { lastInjectedSeq: -1, log: newRunLog(), encoded: undefined, runNos: undefined };
      this.#runs.set(run, slot);
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
    const slot = this.#runs.get(run);
    return slot === undefined ? undefined : this.#open(slot);
  }
}

/** The numbers of an `a,b,c` key (as many as it has; the tuple type only spares the undefined checks). */
function numbers(key: string): [number, number, number, number] {
  return key.split(",").map(Number) as [number, number, number, number];
}

/** An event's origin number `o` belongs to a query for `origin` (see sameRun: an origin-less event matches any). */
function matches(o: number | undefined, origin: number | undefined): boolean {
  return origin === undefined || o === 0 || o === origin;
}

/** True when `events` are in (time, eventId) order. */
function sorted(events: readonly LedgerEvent[]): boolean {
  for (let i = 1; i < events.length; i++) if (compareEvents(events[i - 1] as LedgerEvent, events[i] as LedgerEvent) > 0) return false;
  return true;
}

/** Fold `events` (any order: a copy is sorted by time then eventId, stable). Not de-duplicated: `readLedger` does that. */
export function foldEvents(events: readonly LedgerEvent[]): LedgerState {
  const state = new LedgerState();
  const ordered = sorted(events) ? events : [...events].sort(compareEvents);
  for (const event of ordered) state.apply(event);
  return state;
}

/** A ledger as consumers accept it: its events (folded on demand, once per array) or its folded state. */
export type LedgerSource = readonly LedgerEvent[] | LedgerState;

const folded = new WeakMap<readonly LedgerEvent[], LedgerState>();

/** The state of `source`: itself, or the fold of an event list (cached per array: treat the array as read-only). */
export function ledgerState(source: LedgerSource): LedgerState {
  if (source instanceof LedgerState) return source;
  let state = folded.get(source);
  if (state === undefined) {
    state = foldEvents(source);
    folded.set(source, state);
  }
  return state;
}
