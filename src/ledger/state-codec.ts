/**
 * The folded state as plain JSON, for the snapshot in `.cairn/` (snapshot.ts): strings once in
 * tables, everything else numbers. Run logs stay encoded until a query needs one (a command asks
 * about one run of thousands), and one never decoded is written back as it was read.
 * `decodeState` checks every number against the tables, so a damaged snapshot is refused whole
 * (and rebuilt) rather than failing later.
 */
import type { LedgerEvent } from "./events.js";
import { checkEvent } from "./validate.js";
import { type EntryFold, LedgerState, newEntryFold, newRunLog, type RunLog, type RunSlot, Table, type VerificationState } from "./state.js";

/** Bump when the fold (state.ts `apply`) or this encoding changes: older snapshots are then rebuilt. */
export const STATE_FORMAT = 1;

type EncodedRun = [injected: number[], held: number[], calls: number[], findings: number[], independent: number[], compounded: number[]];
type EncodedExtras = { archived?: LedgerEvent; affirmed?: LedgerEvent; verification?: VerificationState; prints?: EntryFold["prints"] };
type EncodedEntry = [
  entry: number,
  independent: number,
  primed: number,
  withheld: number,
  found: number,
  injectedRuns: number,
  named: 0 | 1,
  lastReset: string | null,
  lastInjected: string | null,
  lastInjectedRun: string | null,
  injectedAfter: Array<number | string>,
  heldAfter: Array<number | string>,
  extras: EncodedExtras | null,
];

export type EncodedState = {
  size: number;
  last: LedgerEvent | null;
  origins: string[];
  agents: string[];
  entryIds: string[];
  hashes: string[];
  runKeys: string[];
  entries: EncodedEntry[];
  runs: Array<[run: string, lastInjectedSeq: number, log: EncodedRun]>;
};

/** Field widths of the run log's flat arrays. */
const WIDTHS = [3, 3, 2, 5, 4, 4] as const;

export function encodeState(state: LedgerState): EncodedState {
  const p = state.parts();
  const entries: EncodedEntry[] = [];
  for (const [id, e] of p.entries) {
    const extras: EncodedExtras = {};
    if (e.lastArchived) extras.archived = e.lastArchived;
    if (e.lastAffirmed) extras.affirmed = e.lastAffirmed;
    if (e.verification) extras.verification = e.verification;
    if (e.prints) extras.prints = e.prints;
    entries.push([
      p.entryIds.no(id),
      e.independent,
      e.primed,
      e.withheld,
      e.found,
      e.injectedRuns,
      e.named ? 1 : 0,
      e.lastReset ?? null,
      e.lastInjected ?? null,
      e.lastInjectedRun ?? null,
      flatMap(e.injectedAfter),
      flatMap(e.heldAfter),
      Object.keys(extras).length ? extras : null,
    ]);
  }
  const runs: EncodedState["runs"] = [];
  for (const [run, slot] of p.runs) runs.push([run, slot.lastInjectedSeq, slot.log ? encodeRun(slot.log) : (slot.encoded as EncodedRun)]);
  return {
    size: p.size,
    last: p.last ?? null,
    origins: p.origins.list,
    agents: p.agents.list,
    entryIds: p.entryIds.list,
    hashes: p.hashes.list,
    runKeys: p.runKeys.list,
    entries,
    runs,
  };
}

function flatMap(map: ReadonlyMap<number, string>): Array<number | string> {
  const out: Array<number | string> = [];
  for (const [run, time] of map) out.push(run, time);
  return out;
}

function encodeRun(log: RunLog): EncodedRun {
  const flat = (keys: Iterable<string>, extra?: (key: string) => number[]): number[] => {
    const out: number[] = [];
    for (const key of keys) {
      for (const n of key.split(":")) out.push(Number(n));
      if (extra) out.push(...extra(key));
    }
    return out;
  };
  return [
    flat(log.injected),
    flat(log.held),
    flat(log.calls),
    flat(log.findings.keys(), (k) => [log.findings.get(k) as number]),
    flat(log.independent.keys(), (k) => [log.independent.get(k) as number]),
    flat(log.compounded.keys(), (k) => log.compounded.get(k) as [number, number]),
  ];
}

/** The string tables, in the order `decode` reads them. */
const TABLES = ["origins", "agents", "entryIds", "hashes", "runKeys"] as const;

/** Why a snapshot's state was refused. */
class Invalid extends Error {}

function need(ok: boolean, what: string): void {
  if (!ok) throw new Invalid(what);
}

const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === "string");
const isCount = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v >= 0;
const isTime = (v: unknown): v is string => typeof v === "string" && v.length === 24;
const isEvent = (v: unknown): v is LedgerEvent => checkEvent(structuredClone(v)) === undefined;

/** The state in `value`, or an error message when it is not a well-formed encoded state. */
export function decodeState(value: unknown): { state: LedgerState } | { problem: string } {
  try {
    return { state: decode(value) };
  } catch (error) {
    // Anything unexpected in a damaged file (a null where an object belongs) is as good a reason to rebuild.
    return { problem: error instanceof Invalid ? error.message : `malformed (${(error as Error).message})` };
  }
}

function decode(value: unknown): LedgerState {
  need(typeof value === "object" && value !== null, "state is not an object");
  const v = value as Record<string, unknown>;
  need(isCount(v.size), "size");
  need(v.last === null || isEvent(v.last), "last event");
  const [origins, agents, entryIds, hashes, runKeys] = TABLES.map((key) => {
    const list = v[key];
    need(isStrings(list), key);
    const table = new Table(list as string[]);
    need(table.list.length === (list as string[]).length, `${key}: a string appears twice`);
    return table;
  }) as [Table, Table, Table, Table, Table];
  need(origins.list[0] === "", "origin 0 must be none");
  need(Array.isArray(v.entries) && Array.isArray(v.runs), "entries and runs");
  const entries = new Map<string, EntryFold>();
  for (const raw of v.entries as unknown[]) {
    need(Array.isArray(raw) && raw.length === 13, "entry");
    const [n, independent, primed, withheld, found, injectedRuns, named, lastReset, lastInjected, lastInjectedRun, injectedAfter, heldAfter, extras] = raw as unknown[];
    need(isCount(n) && (n as number) < entryIds.list.length, "entry number");
    for (const c of [independent, primed, withheld, found, injectedRuns]) need(isCount(c), "entry count");
    need(named === 0 || named === 1, "entry named");
    for (const t of [lastReset, lastInjected]) need(t === null || isTime(t), "entry time");
    need(lastInjectedRun === null || typeof lastInjectedRun === "string", "entry run");
    const e = newEntryFold();
    Object.assign(e, { independent, primed, withheld, found, injectedRuns, named: named === 1 });
    if (lastReset !== null) e.lastReset = lastReset as string;
    if (lastInjected !== null) e.lastInjected = lastInjected as string;
    if (lastInjectedRun !== null) e.lastInjectedRun = lastInjectedRun as string;
    readTimes(injectedAfter, runKeys, e.injectedAfter);
    readTimes(heldAfter, runKeys, e.heldAfter);
    if (extras !== null) readExtras(extras, e);
    entries.set(entryIds.at(n as number), e);
  }
  const sizes = { origins: origins.list.length, agents: agents.list.length, entries: entryIds.list.length, hashes: hashes.list.length };
  const runs = new Map<string, RunSlot>();
  for (const raw of v.runs as unknown[]) {
    need(Array.isArray(raw) && raw.length === 3 && typeof raw[0] === "string" && Number.isInteger(raw[1]) && (raw[1] as number) >= -1, "run");
    const [run, lastInjectedSeq, encoded] = raw as [string, number, unknown];
    checkRun(encoded, sizes);
    runs.set(run, { lastInjectedSeq, encoded });
  }
  return new LedgerState({
    size: v.size as number,
    last: (v.last as LedgerEvent | null) ?? undefined,
    origins,
    agents,
    entryIds,
    hashes,
    runKeys,
    entries,
    runs,
    decodeRun: (encoded) => decodeRun(encoded as EncodedRun),
  });
}

function readTimes(raw: unknown, runKeys: Table, into: Map<number, string>): void {
  need(Array.isArray(raw) && raw.length % 2 === 0, "run times");
  const list = raw as unknown[];
  for (let i = 0; i < list.length; i += 2) {
    const run = list[i];
    const time = list[i + 1];
    need(isCount(run) && (run as number) < runKeys.list.length && isTime(time), "run time");
    into.set(run as number, time as string);
  }
}

function readExtras(raw: unknown, e: EntryFold): void {
  need(typeof raw === "object" && raw !== null, "entry extras");
  const x = raw as EncodedExtras;
  if (x.archived !== undefined) {
    need(isEvent(x.archived), "archived event");
    e.lastArchived = x.archived;
  }
  if (x.affirmed !== undefined) {
    need(isEvent(x.affirmed), "affirming event");
    e.lastAffirmed = x.affirmed;
  }
  if (x.verification !== undefined) {
    need(typeof x.verification === "object" && x.verification !== null && isEvent(x.verification.latest) && x.verification.latest.type === "verified" && typeof x.verification.confirmedAfter === "boolean", "verification");
    e.verification = { latest: x.verification.latest, confirmedAfter: x.verification.confirmedAfter };
  }
  if (x.prints !== undefined) {
    need(typeof x.prints === "object" && x.prints !== null && typeof x.prints.date === "string" && Array.isArray(x.prints.prints), "fingerprints");
    e.prints = x.prints;
  }
}

/** Check an encoded run log's shape and every number's range, without building it. */
function checkRun(raw: unknown, sizes: { origins: number; agents: number; entries: number; hashes: number }): void {
  need(Array.isArray(raw) && raw.length === WIDTHS.length, "run log");
  // Which table each field of each flat array points into ("n": a count or sequence number).
  const fields = [["o", "a", "e"], ["o", "a", "e"], ["o", "a"], ["o", "a", "h", "e", "n"], ["o", "a", "e", "n"], ["o", "h", "e", "n"]] as const;
  const limit = { o: sizes.origins, a: sizes.agents, e: sizes.entries, h: sizes.hashes, n: Number.MAX_SAFE_INTEGER };
  (raw as unknown[]).forEach((list, i) => {
    const spec = fields[i] as readonly Array<keyof typeof limit>[number][];
    need(Array.isArray(list) && list.length % spec.length === 0, "run log field");
    const values = list as unknown[];
    for (let k = 0; k < values.length; k++) {
      const n = values[k];
      need(isCount(n) && (n as number) < limit[spec[k % spec.length] as keyof typeof limit], "run log number");
    }
  });
}

function decodeRun(raw: EncodedRun): RunLog {
  const log = newRunLog();
  const [injected, held, calls, findings, independent, compounded] = raw;
  for (let i = 0; i < injected.length; i += 3) {
    log.injected.add(`${injected[i]}:${injected[i + 1]}:${injected[i + 2]}`);
    log.injectedEntries.add(`${injected[i]}:${injected[i + 2]}`);
  }
  for (let i = 0; i < held.length; i += 3) log.held.add(`${held[i]}:${held[i + 1]}:${held[i + 2]}`);
  for (let i = 0; i < calls.length; i += 2) log.calls.add(`${calls[i]}:${calls[i + 1]}`);
  for (let i = 0; i < findings.length; i += 5) log.findings.set(`${findings[i]}:${findings[i + 1]}:${findings[i + 2]}:${findings[i + 3]}`, findings[i + 4] as number);
  for (let i = 0; i < independent.length; i += 4) log.independent.set(`${independent[i]}:${independent[i + 1]}:${independent[i + 2]}`, independent[i + 3] as number);
  for (let i = 0; i < compounded.length; i += 4) log.compounded.set(`${compounded[i]}:${compounded[i + 1]}`, [compounded[i + 2] as number, compounded[i + 3] as number]);
  return log;
}
