/** What the fold keeps per run id (state.ts): who was given or had withheld what, and which findings were recorded. */

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

/** Agents per origin in a call key: origins and agents are numbered below this (2^26), so a key stays an exact integer. */
export const CALL_AGENTS = 2 ** 26;

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

/** The numbers of an `a,b,c` key (as many as it has; the tuple type only spares the undefined checks). */
function numbers(key: string): [number, number, number, number] {
  return key.split(",").map(Number) as [number, number, number, number];
}

/**
 * An event's origin number `o` belongs to a query for origin number `origin` (undefined: any; -1: one
 * the ledger never saw). As in sameRun, an event without an origin matches any.
 */
function matches(o: number | undefined, origin: number | undefined): boolean {
  return origin === undefined || o === 0 || o === origin;
}

/** Entry numbers injected (or withheld) in the run under `origin`, into `agent` (or any agent), unique, in first-seen order. */
export function entriesOf(log: RunLog, kind: "injected" | "held", origin: number | undefined, agent: number | undefined): number[] {
  const entries = new Set<number>();
  const pairs = log[kind];
  for (let i = 0; i < pairs.length; i += 2) {
    const call = pairs[i] as number;
    if (matches(log.calls[2 * call], origin) && (agent === undefined || log.calls[2 * call + 1] === agent)) entries.add(pairs[i + 1] as number);
  }
  return [...entries];
}

/** Agent numbers with an injected or held-out event in the run under `origin`, first-seen order; undefined when there is none. */
export function recordedAgents(log: RunLog, origin: number | undefined): number[] | undefined {
  const agents = log.recorded.filter((call) => matches(log.calls[2 * call], origin)).map((call) => log.calls[2 * call + 1] as number);
  return agents.length ? [...new Set(agents)] : undefined;
}

/** [agent, hash, entry] of the latest `confirmed` event per (agent, finding hash) in the run under `origin`. */
export function latestFindings(log: RunLog, origin: number | undefined): Array<[number, number, number]> {
  const latest = new Map<string, [number, number, number, number]>();
  for (const [key, seq] of log.findings) {
    const [call, hash, entry] = numbers(key);
    if (!matches(log.calls[2 * call], origin)) continue;
    const agent = log.calls[2 * call + 1] as number;
    const finding = `${agent},${hash}`;
    if ((latest.get(finding)?.[3] ?? -1) < seq) latest.set(finding, [agent, hash, entry, seq]);
  }
  return [...latest.values()].map(([agent, hash, entry]) => [agent, hash, entry]);
}

/** [hash, entry] of the latest `compounded` event per finding hash in the run under `origin`. */
export function latestCompounded(log: RunLog, origin: number | undefined): Array<[number, number]> {
  const latest = new Map<number, [number, number]>();
  for (const [key, [entry, seq]] of log.compounded) {
    const [o, hash] = numbers(key);
    if (matches(o, origin) && (latest.get(hash)?.[1] ?? -1) < seq) latest.set(hash, [entry, seq]);
  }
  return [...latest].map(([hash, [entry]]) => [hash, entry]);
}
