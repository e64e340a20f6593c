/**
 * The folded state as a snapshot body (snapshot.ts), read lazily: a cold command asks about a few
 * entries and one run, so parsing the whole state (5 MB at 100k events) would cost what reading
 * the ledger costs. The body is a run of JSON texts — per entry its counters and times, the runs
 * after its last reset and the events it keeps; per run its log; then the indexes that locate them
 * and the string tables — and a small header says where each section is, with the body's sha256.
 * Loading checks the hash (a few ms) and parses the run index; entries, runs and tables are parsed
 * on first use, an entry's kept events (most of its bytes) only when they are read (stored-fold.ts).
 * A record never decoded is written back byte for byte.
 */
import { createHash } from "node:crypto";
import type { LedgerEvent } from "./events.js";
import { digestOf } from "./entry-fold.js";
import { addTo, type AfterRuns, callOf, type EntryFold, LedgerState, newEntryFold, newRunLog, type RunLog, type RunSlot, type Stored, Table } from "./state.js";
import { type Extras, extrasMask, StoredFold } from "./stored-fold.js";
import { checkEvent } from "./validate.js";

/** Bump when the fold (state.ts `apply`) or this encoding changes: older snapshots are then rebuilt. */
export const STATE_FORMAT = 5;

/** [offset, length] of a JSON text in the body. */
type Section = [offset: number, length: number];

/** What locates the state in its body; the rest of the header is snapshot.ts's. */
export type StateHeader = {
  size: number;
  last: LedgerEvent | null;
  origins: string[];
  agents: string[];
  /** Body length and sha256 (hex). */
  bytes: number;
  sha256: string;
  /** Entry ids by number (a JSON list of strings). */
  ids: Section;
  /** Per entry number, six numbers in one flat list: where its record, its after-reset runs and its kept events are ([offset, length] each; length 0: none). */
  entries: Section;
  runKeys: Section;
  /** `[[run, lastInjectedSeq, offset, length], …]`. */
  runs: Section;
};

export type EncodedState = { header: StateHeader; body: Buffer };

type EntryRecord = [
  independent: number,
  primed: number,
  withheld: number,
  found: number,
  injectedRuns: number,
  named: 0 | 1,
  lastReset: string | null,
  lastInjected: string | null,
  lastInjectedRun: string | null,
  afterRuns: number,
  heldOnlyRuns: number,
  /** Which events it keeps (stored-fold.ts HAS), and the digest of its fingerprints. */
  mask: number,
  printsKey: string | null,
];
/** [run, time, run, time, …] of the injections, then of the withholdings. */
type AfterRecord = [injected: Array<number | string>, held: Array<number | string>];
/** Numbers per entry in the `entries` index. */
const AT = 6;
/** The maps' [hash, call or origin, entry, sequence number, …] are flat lists with the hash strings in place. */
type RunRecord = [calls: number[], recorded: number[], injected: number[], held: number[], findings: Array<string | number>, independent: number[], compounded: Array<string | number>];

/** The raw bytes of the records a state was loaded from, so that undecoded ones are copied, not re-encoded. */
const sources = new WeakMap<Stored, { body: Buffer; entries: () => number[]; ids: Section; runKeys: Section }>();

/** A body being written: JSON texts appended one after another. */
class Body {
  readonly chunks: Buffer[] = [];
  length = 0;

  add(bytes: Buffer): Section {
    this.chunks.push(bytes);
    this.length += bytes.length;
    return [this.length - bytes.length, bytes.length];
  }

  json(value: unknown): Section {
    return this.text(JSON.stringify(value));
  }

  text(json: string): Section {
    return this.add(Buffer.from(json));
  }
}

export function encodeState(state: LedgerState): EncodedState {
  const p = state.parts();
  const source = p.stored ? sources.get(p.stored) : undefined;
  const storedAt = source?.entries();
  const body = new Body();
  const raw = (at: Section) => body.add((source as { body: Buffer }).body.subarray(at[0], at[0] + at[1]));
  const storedSection = (n: number, part: 0 | 1 | 2): Section => [(storedAt as number[])[n * AT + 2 * part] as number, (storedAt as number[])[n * AT + 2 * part + 1] as number];
  const index: number[] = [];
  p.entryIds.list.forEach((id, n) => {
    const e = p.entries.get(id);
    // Records of entries not decoded since the snapshot was read are copied as they were.
    if (e === undefined && storedAt !== undefined && n * AT < storedAt.length) {
      index.push(...raw(storedSection(n, 0)), ...raw(storedSection(n, 1)), ...raw(storedSection(n, 2)));
      return;
    }
    const fold = e ?? newEntryFold(n);
    const after = fold.after === undefined ? raw(fold.afterAt as Section) : body.text(afterRecord(fold.after));
    // Kept events never read since the snapshot was loaded are copied too, with what the record says of them.
    const kept = fold instanceof StoredFold && fold.encoded ? { mask: fold.mask, key: fold.printsKey, at: raw(storedSection(n, 2)) } : keptEvents(fold, body);
    index.push(...body.json(entryRecord(fold, kept.mask, kept.key)), ...after, ...kept.at);
  });
  const table = (t: Table, at: Section | undefined) => (!t.loaded && at ? raw(at) : body.json(t.list));
  const ids = table(p.entryIds, source?.ids);
  const entries = body.json(index);
  const runIndex: Array<[string, number, number, number]> = [];
  for (const [run, slot] of p.runs) {
    const at = slot.log === undefined ? raw(slot.encoded as Section) : body.text(runRecord(slot.log));
    runIndex.push([run, slot.lastInjectedSeq, ...at]);
  }
  // A table never needed since it was loaded is copied as it was.
  const runKeys = table(p.runKeys, source?.runKeys);
  const runs = body.json(runIndex);
  const bytes = Buffer.concat(body.chunks, body.length);
  return {
    header: {
      size: p.size,
      last: p.last ?? null,
      origins: [...p.origins.list],
      agents: [...p.agents.list],
      bytes: bytes.length,
      sha256: createHash("sha256").update(bytes).digest("hex"),
      ids,
      entries,
      runKeys,
      runs,
    },
    body: bytes,
  };
}

/** The events `e` keeps, as one JSON object in the body (none: an empty section), with their mask and the digest of its fingerprints. */
function keptEvents(e: EntryFold, body: Body): { mask: number; key: string | undefined; at: Section } {
  const extras: Extras = {};
  if (e.lastArchived) extras.lastArchived = e.lastArchived;
  if (e.lastAffirmed) extras.lastAffirmed = e.lastAffirmed;
  if (e.verification) extras.verification = e.verification;
  const mask = extrasMask({ ...extras, ...(e.prints ? { prints: e.prints } : {}) });
  if (mask === 0) return { mask, key: undefined, at: [body.length, 0] };
  const json = JSON.stringify(extras);
  if (!e.prints) return { mask, key: undefined, at: body.text(json) };
  // The fingerprints' text is written once: the digest is of the very bytes stored.
  const prints = JSON.stringify(e.prints);
  const key = e.printsKey ?? digestOf(prints);
  return { mask, key, at: body.text(`${json.length > 2 ? `${json.slice(0, -1)},` : "{"}"prints":${prints}}`) };
}

function entryRecord(e: EntryFold, mask: number, printsKey: string | undefined): EntryRecord {
  return [
    e.independent,
    e.primed,
    e.withheld,
    e.found,
    e.injectedRuns,
    e.named ? 1 : 0,
    e.lastReset ?? null,
    e.lastInjected ?? null,
    e.lastInjectedRun ?? null,
    e.afterRuns,
    e.heldOnlyRuns,
    mask,
    printsKey ?? null,
  ];
}

/** An AfterRecord's JSON text, written directly (a snapshot holds one per entry: tens of thousands of pairs). */
function afterRecord(after: AfterRuns): string {
  const flat = (map: ReadonlyMap<number, string>): string => {
    let out = "";
    for (const [run, time] of map) out += `${out ? "," : ""}${run},"${time}"`;
    return `[${out}]`;
  };
  return `[${flat(after.injected)},${flat(after.held)}]`;
}

/** A RunRecord's JSON text: the maps' `a,b,…` keys are already JSON number lists, so they are written as they are. */
function runRecord(log: RunLog): string {
  const keyed = (map: ReadonlyMap<string, number>): string => {
    let out = "";
    for (const [key, v] of map) out += `${out ? "," : ""}${key},${v}`;
    return `[${out}]`;
  };
  /** hash → flat triples, as [hash, a, b, c, hash, a, b, c, …]. */
  const byHash = (map: ReadonlyMap<string, readonly number[]>): string => {
    let out = "";
    for (const [hash, list] of map) {
      const text = JSON.stringify(hash);
      for (let i = 0; i < list.length; i += 3) out += `${out ? "," : ""}${text},${list[i]},${list[i + 1]},${list[i + 2]}`;
    }
    return `[${out}]`;
  };
  const list = (numbers: readonly number[]) => `[${numbers.join(",")}]`;
  return `[${[list(log.calls), list(log.recorded), list(log.injected), list(log.held), byHash(log.findings), keyed(log.independent), byHash(log.compounded)].join(",")}]`;
}

const isString = (v: unknown): v is string => typeof v === "string";
const isCount = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v >= 0;
const isSection = (v: unknown, bytes: number): v is Section => Array.isArray(v) && v.length === 2 && isCount(v[0]) && isCount(v[1]) && v[0] + v[1] <= bytes;

/**
 * The state of `body` as `header` describes it, or why not. The body's hash is checked here, so
 * the records parsed later are the bytes this build wrote; a record that still fails to decode
 * is a bug, and throws.
 */
export function decodeState(header: unknown, body: Buffer): { state: LedgerState } | { problem: string } {
  const h = header as StateHeader;
  if (typeof header !== "object" || header === null) return { problem: "no state header" };
  if (!isCount(h.size) || !(h.last === null || checkEvent(structuredClone(h.last)) === undefined)) return { problem: "size or last event" };
  if (!Array.isArray(h.origins) || !h.origins.every(isString) || h.origins[0] !== "" || !Array.isArray(h.agents) || !h.agents.every(isString)) return { problem: "origins or agents" };
  if (h.bytes !== body.length || !isString(h.sha256) || createHash("sha256").update(body).digest("hex") !== h.sha256) return { problem: "the body does not match its hash" };
  if (![h.ids, h.entries, h.runKeys, h.runs].every((s) => isSection(s, body.length))) return { problem: "sections" };
  const parse = <T>([offset, length]: Section): T => JSON.parse(body.toString("utf8", offset, offset + length)) as T;
  let entryIndex: number[] | undefined;
  const entriesAt = () => (entryIndex ??= parse<number[]>(h.entries));
  const extras = (n: number): Extras => {
    const at = entriesAt();
    return parse<Extras>([at[n * AT + 4] as number, at[n * AT + 5] as number]);
  };
  const stored: Stored = {
    entry: (n) => {
      const at = entriesAt();
      const k = n * AT;
      return decodeEntry(n, parse<EntryRecord>([at[k] as number, at[k + 1] as number]), [at[k + 2] as number, at[k + 3] as number], extras);
    },
    run: (encoded) => decodeRun(parse<RunRecord>(encoded as Section)),
    after: (encoded) => decodeAfter(parse<AfterRecord>(encoded as Section)),
  };
  sources.set(stored, { body, entries: entriesAt, ids: h.ids, runKeys: h.runKeys });
  const runs = new Map<string, RunSlot>();
  for (const [run, lastInjectedSeq, offset, length] of parse<Array<[string, number, number, number]>>(h.runs)) {
    runs.set(run, { lastInjectedSeq, log: undefined, encoded: [offset, length], runNos: undefined });
  }
  const state = new LedgerState({
    size: h.size,
    last: h.last ?? undefined,
    origins: new Table(h.origins),
    agents: new Table(h.agents),
    entryIds: new Table(() => parse<string[]>(h.ids)),
    runKeys: new Table(() => parse<string[]>(h.runKeys)),
    entries: new Map(),
    runs,
    stored,
  });
  return { state };
}

function decodeEntry(n: number, r: EntryRecord, afterAt: Section, extras: (n: number) => Extras): EntryFold {
  const e = new StoredFold(n, r[11], r[12] ?? undefined, extras);
  [e.independent, e.primed, e.withheld, e.found, e.injectedRuns] = r;
  e.named = r[5] === 1;
  e.lastReset = r[6] ?? undefined;
  e.lastInjected = r[7] ?? undefined;
  e.lastInjectedRun = r[8] ?? undefined;
  e.afterRuns = r[9];
  e.heldOnlyRuns = r[10];
  // The runs after the last reset stay encoded until a hand-edited date or a new event needs them.
  e.afterAt = afterAt;
  return e;
}

function decodeAfter([injected, held]: AfterRecord): AfterRuns {
  const after: AfterRuns = { injected: new Map(), held: new Map() };
  for (const [list, map] of [[injected, after.injected], [held, after.held]] as const) {
    for (let i = 0; i < list.length; i += 2) map.set(list[i] as number, list[i + 1] as string);
  }
  return after;
}

function decodeRun(raw: RunRecord): RunLog {
  const log = newRunLog();
  const [calls, recorded, injected, held, findings, independent, compounded] = raw;
  for (let i = 0; i < calls.length; i += 2) callOf(log, calls[i] as number, calls[i + 1] as number);
  log.recorded = recorded;
  log.injected = injected;
  for (let i = 0; i < injected.length; i += 2) addTo(log.injectedEntries, calls[2 * (injected[i] as number)] as number, injected[i + 1] as number);
  log.held = held;
  for (let i = 0; i < held.length; i += 2) addTo(log.heldBy, held[i] as number, held[i + 1] as number);
  for (const [flat, map] of [[findings, log.findings], [compounded, log.compounded]] as const) {
    for (let i = 0; i < flat.length; i += 4) {
      const hash = flat[i] as string;
      let list = map.get(hash);
      if (list === undefined) {
        list = [];
        map.set(hash, list);
      }
      list.push(flat[i + 1] as number, flat[i + 2] as number, flat[i + 3] as number);
    }
  }
  for (let i = 0; i < independent.length; i += 3) log.independent.set(`${independent[i]},${independent[i + 1]}`, independent[i + 2] as number);
  return log;
}
