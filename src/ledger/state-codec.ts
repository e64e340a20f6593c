/**
 * The folded state as a snapshot body (snapshot.ts), read lazily: a cold command asks about a few
 * entries and one run, so parsing the whole state (5 MB at 100k events) would cost what reading
 * the ledger costs. The body is a run of JSON texts — the entries' folds (entry-codec.ts), per run
 * its log, then the indexes that locate them and the string tables — and a small header says where
 * each section is, with the body's sha256. Loading checks the hash (a few ms) and parses the run
 * index; entries, runs and tables are parsed on first use. A record never decoded is written back
 * byte for byte.
 */
import { createHash } from "node:crypto";
import type { LedgerEvent } from "./events.js";
import { Body, parseAt, type Section } from "./body.js";
import { encodeEntries, type EntrySections, StoredEntries } from "./entry-codec.js";
import { addTo, callOf, LedgerState, newRunLog, type RunLog, type RunSlot, type Stored, Table } from "./state.js";
import { checkEvent } from "./validate.js";

/** Bump when the fold (state.ts `apply`) or this encoding changes: older snapshots are then rebuilt. */
export const STATE_FORMAT = 9;

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
  /** Where each entry's fold is (entry-codec.ts). */
  entries: EntrySections;
  runKeys: Section;
  /** `[[run, lastInjectedSeq, offset, length], …]`. */
  runs: Section;
};

export type EncodedState = { header: StateHeader; body: Buffer };

/** The maps' [hash, call or origin, entry, sequence number, …] are flat lists with the hash strings in place. */
type RunRecord = [calls: number[], recorded: number[], injected: number[], held: number[], findings: Array<string | number>, independent: number[], compounded: Array<string | number>];

/** The raw bytes of the records a state was loaded from, so that undecoded ones are copied, not re-encoded. */
const sources = new WeakMap<Stored, { body: Buffer; entries: StoredEntries; ids: Section; runKeys: Section }>();

export function encodeState(state: LedgerState): EncodedState {
  const p = state.parts();
  const source = p.stored ? sources.get(p.stored) : undefined;
  const body = new Body();
  const raw = (at: Section) => body.add((source as { body: Buffer }).body.subarray(at[0], at[0] + at[1]));
  // A table never needed since it was loaded is copied as it was.
  const table = (t: Table, at: Section | undefined) => (!t.loaded && at ? raw(at) : body.json(t.list));
  const ids = table(p.entryIds, source?.ids);
  const entries = encodeEntries(body, p.folds, p.entryIds.loaded ? p.entryIds.list.length : (source as { entries: StoredEntries }).entries.count, source?.entries, raw);
  const runIndex: Array<[string, number, number, number]> = [];
  for (const [run, slot] of p.runs) {
    const at = slot.log === undefined ? raw(slot.encoded as Section) : body.text(runRecord(slot.log));
    runIndex.push([run, slot.lastInjectedSeq, ...at]);
  }
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
  const e = h.entries as Partial<EntrySections> | undefined;
  if (typeof e !== "object" || e === null || ![h.ids, e.blocks, e.at, e.digests, h.runKeys, h.runs].every((s) => isSection(s, body.length))) return { problem: "sections" };
  const parse = <T>(at: Section): T => parseAt<T>(body, at);
  const entries = new StoredEntries(body, h.entries);
  const stored: Stored = {
    entry: (n) => entries.entry(n),
    digest: (n) => entries.digest(n),
    run: (encoded) => decodeRun(parse<RunRecord>(encoded as Section)),
    after: (encoded) => entries.afterRuns(encoded as number),
  };
  sources.set(stored, { body, entries, ids: h.ids, runKeys: h.runKeys });
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
    folds: [],
    runs,
    stored,
  });
  return { state };
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
