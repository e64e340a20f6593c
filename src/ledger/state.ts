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
  /** Run number → latest time it injected the entry, for injections after `lastReset`. */
  injectedAfter: Map<number, string>;
  /** Run number → latest time it withheld the entry, for withholdings after `lastReset`. */
  heldAfter: Map<number, string>;
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

/**
 * Events in one run id, as interned numbers joined by ":" (origin 0 = none): what each agent was
 * given or had withheld, which findings were recorded and compounded.
 */
export type RunLog = {
  /** `origin:agent:entry` of every injection, first-seen order. */
  injected: Set<string>;
  /** `origin:entry` of every injection: the entry counts once for that run. */
  injectedEntries: Set<string>;
  /** `origin:agent:entry` of every withholding, first-seen order. */
  held: Set<string>;
  /** `origin:agent` of every injected or held-out event (an inject call that gave nothing counts). */
  calls: Set<string>;
  /** `origin:agent:hash:entry` → sequence number of the latest such `confirmed` event. */
  findings: Map<string, number>;
  /** `origin:agent:entry` → counted independent confirmations. */
  independent: Map<string, number>;
  /** `origin:hash` → [entry number, sequence number] of the latest `compounded` event. */
  compounded: Map<string, [number, number]>;
};

/** A run id's log, decoded on first use (a snapshot holds thousands; a command asks about one). */
export type RunSlot = { lastInjectedSeq: number; log?: RunLog; encoded?: unknown };

/** Strings numbered in first-seen order. */
export class Table {
  readonly list: string[];
  readonly #index = new Map<string, number>();

  constructor(list: readonly string[] = []) {
    this.list = [];
    for (const s of list) this.no(s);
  }

  no(value: string): number {
    let n = this.#index.get(value);
    if (n === undefined) {
      n = this.list.length;
      this.list.push(value);
      this.#index.set(value, n);
    }
    return n;
  }

  find(value: string): number | undefined {
    return this.#index.get(value);
  }

  at(n: number): string {
    return this.list[n] as string;
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

export function newEntryFold(): EntryFold {
  return { independent: 0, primed: 0, withheld: 0, found: 0, injectedRuns: 0, injectedAfter: new Map(), heldAfter: new Map(), named: false };
}

export function newRunLog(): RunLog {
  return { injected: new Set(), injectedEntries: new Set(), held: new Set(), calls: new Set(), findings: new Map(), independent: new Map(), compounded: new Map() };
}

/** The parts of a state, as the codec (state-codec.ts) reads and writes them. */
export type StateParts = {
  size: number;
  last: LedgerEvent | undefined;
  origins: Table;
  agents: Table;
  entryIds: Table;
  hashes: Table;
  runKeys: Table;
  entries: Map<string, EntryFold>;
  runs: Map<string, RunSlot>;
  decodeRun: (encoded: unknown) => RunLog;
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
  readonly #decodeRun: ((encoded: unknown) => RunLog) | undefined;
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
    this.#decodeRun = parts?.decodeRun;
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
      const key = `${this.#originNo(event.origin)}:${this.#hashes.no(event.findingHash)}`;
      this.#log(event.run).compounded.set(key, [this.#entryIds.no(event.entry), seq]);
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
      e.injectedAfter.clear();
      e.heldAfter.clear();
    }
  }

  #injected(event: Extract<LedgerEvent, { type: "injected" }>, seq: number): void {
    const slot = this.#slot(event.run);
    slot.lastInjectedSeq = seq;
    const log = this.#open(slot);
    const origin = this.#originNo(event.origin);
    const agent = this.#agentKeyNo(event.agent);
    log.calls.add(`${origin}:${agent}`);
    const run = this.#runKeys.no(runKey(event.run, event.origin));
    for (const id of event.entries) {
      const n = this.#entryIds.no(id);
      log.injected.add(`${origin}:${agent}:${n}`);
      const e = this.#entry(id);
      const once = `${origin}:${n}`;
      if (!log.injectedEntries.has(once)) {
        log.injectedEntries.add(once);
        e.injectedRuns += 1;
      }
      e.lastInjected = event.time;
      e.lastInjectedRun = event.run;
      if (e.lastReset === undefined || event.time > e.lastReset) e.injectedAfter.set(run, event.time);
    }
  }

  #heldOut(e: EntryFold, event: Extract<LedgerEvent, { type: "held-out" }>): void {
    const log = this.#log(event.run);
    const origin = this.#originNo(event.origin);
    const agent = this.#agentKeyNo(event.agent);
    log.calls.add(`${origin}:${agent}`);
    const pair = `${origin}:${agent}:${this.#entryIds.no(event.entry)}`;
    if (!log.held.has(pair)) {
      log.held.add(pair);
      e.withheld += 1;
      e.found += log.independent.get(pair) ?? 0;
    }
    if (e.lastReset === undefined || event.time > e.lastReset) e.heldAfter.set(this.#runKeys.no(runKey(event.run, event.origin)), event.time);
  }

  /** Count a confirmation; false when the same (run, agent, finding) was confirmed before. */
  #confirmed(e: EntryFold, event: Extract<LedgerEvent, { type: "confirmed" }>, seq: number): boolean {
    const log = this.#log(event.run);
    const origin = this.#originNo(event.origin);
    const agent = this.#agentKeyNo(event.agent);
    const entry = this.#entryIds.no(event.entry);
    if (event.findingHash !== undefined) {
      const key = `${origin}:${agent}:${this.#hashes.no(event.findingHash)}:${entry}`;
      const repeated = log.findings.has(key);
      log.findings.set(key, seq);
      if (repeated) return false;
    }
    if (event.provenance === "primed") {
      e.primed += 1;
      return true;
    }
    e.independent += 1;
    const pair = `${origin}:${agent}:${entry}`;
    log.independent.set(pair, (log.independent.get(pair) ?? 0) + 1);
    if (log.held.has(pair)) e.found += 1;
    return true;
  }

  /** The fold of entry `id`; undefined when no event mentions it. */
  entry(id: string): Readonly<EntryFold> | undefined {
    return this.#entries.get(id);
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
    for (const call of log.calls) {
      const [o, a] = numbers(call);
      if (!matches(o, origin)) continue;
      record.injected = true;
      record.agents.add(this.#agents.at(a));
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
      const [o, a, h, e] = numbers(key);
      if (!matches(o, origin)) continue;
      const finding = `${this.#agents.at(a)}\u0000${this.#hashes.at(h)}`;
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
    return this.#entries.get(entry)?.named ?? false;
  }

  /** Per entry id: the latest `verified` event and whether a confirmation came after it. */
  verifications(): Map<string, VerificationState> {
    const out = new Map<string, VerificationState>();
    for (const [id, e] of this.#entries) if (e.verification !== undefined) out.set(id, e.verification);
    return out;
  }

  /** Per entry id, the latest confirmation event that carries fingerprints. */
  fingerprints(): Map<string, ConfirmedPrints> {
    const out = new Map<string, ConfirmedPrints>();
    for (const [id, e] of this.#entries) if (e.prints !== undefined) out.set(id, e.prints);
    return out;
  }

  /** The parts, for the codec. Decodes nothing. */
  parts(): Omit<StateParts, "decodeRun"> {
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
    };
  }

  #entriesOf(run: RunRef, agent: string | undefined, kind: "injected" | "held"): string[] {
    const log = this.#peek(run.run);
    if (log === undefined) return [];
    const origin = this.#refOrigin(run);
    const wanted = agent === undefined ? undefined : this.#agents.find(agentKey(agent));
    if (agent !== undefined && wanted === undefined) return [];
    const ids = new Set<string>();
    for (const key of log[kind]) {
      const [o, a, e] = numbers(key);
      if (matches(o, origin) && (wanted === undefined || a === wanted)) ids.add(this.#entryIds.at(e));
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
    let e = this.#entries.get(id);
    if (e === undefined) {
      e = newEntryFold();
      this.#entries.set(id, e);
    }
    return e;
  }

  #slot(run: string): RunSlot {
    let slot = this.#runs.get(run);
    if (slot === undefined) {
      slot = { lastInjectedSeq: -1, log: newRunLog() };
      this.#runs.set(run, slot);
    }
    return slot;
  }

  #open(slot: RunSlot): RunLog {
    if (slot.log === undefined) {
      if (this.#decodeRun === undefined) throw new Error("a run log is encoded but the state has no decoder");
      slot.log = this.#decodeRun(slot.encoded);
      delete slot.encoded;
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

/** The numbers of an `a:b:c` key (as many as it has; the tuple type only spares the undefined checks). */
function numbers(key: string): [number, number, number, number] {
  return key.split(":").map(Number) as [number, number, number, number];
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
