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
  /** finding hash → [call, entry, sequence number of the latest such `confirmed` event, …] (usually one triple). */
  findings: Map<string, number[]>;
  /** `call,entry` → counted independent confirmations. */
  independent: Map<string, number>;
  /** finding hash → [origin, entry, sequence number of the latest `compounded` event, …], one triple per origin. */
  compounded: Map<string, number[]>;
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

/**
 * Record a `confirmed` event of finding `hash` by `call` for `entry` (sequence number `seq`);
 * false when that (run, agent, finding, entry) was confirmed before: a retry or a union merge.
 */
export function addFinding(log: RunLog, hash: string, call: number, entry: number, seq: number): boolean {
  let list = log.findings.get(hash);
  if (list === undefined) {
    list = [];
    log.findings.set(hash, list);
  }
  for (let i = 0; i < list.length; i += 3) {
    if (list[i] === call && list[i + 1] === entry) {
      list[i + 2] = seq;
      return false;
    }
  }
  list.push(call, entry, seq);
  return true;
}

/** Record a `compounded` event of finding `hash` under `origin`: the latest one per (origin, hash) is kept. */
export function addCompounded(log: RunLog, hash: string, origin: number, entry: number, seq: number): void {
  let list = log.compounded.get(hash);
  if (list === undefined) {
    list = [];
    log.compounded.set(hash, list);
  }
  for (let i = 0; i < list.length; i += 3) {
    if (list[i] === origin) {
      list[i + 1] = entry;
      list[i + 2] = seq;
      return;
    }
  }
  list.push(origin, entry, seq);
}

/** [agent, hash, entry] of the latest `confirmed` event per (agent, finding hash) in the run under `origin`. */
export function latestFindings(log: RunLog, origin: number | undefined): Array<[number, string, number]> {
  const latest = new Map<string, [number, string, number, number]>();
  for (const [hash, list] of log.findings) {
    for (let i = 0; i < list.length; i += 3) {
      const call = list[i] as number;
      if (!matches(log.calls[2 * call], origin)) continue;
      const agent = log.calls[2 * call + 1] as number;
      const seq = list[i + 2] as number;
      const finding = `${agent}\u0000${hash}`;
      if ((latest.get(finding)?.[3] ?? -1) < seq) latest.set(finding, [agent, hash, list[i + 1] as number, seq]);
    }
  }
  return [...latest.values()].map(([agent, hash, entry]) => [agent, hash, entry]);
}

/** [agent, hash, entry] of every `confirmed` event in the run under `origin`, once per triple: one finding text can confirm several entries it cites. */
export function allFindings(log: RunLog, origin: number | undefined): Array<[number, string, number]> {
  const out: Array<[number, string, number]> = [];
  for (const [hash, list] of log.findings) {
    for (let i = 0; i < list.length; i += 3) {
      const call = list[i] as number;
      if (matches(log.calls[2 * call], origin)) out.push([log.calls[2 * call + 1] as number, hash, list[i + 1] as number]);
    }
  }
  return out;
}

/** [hash, entry] of the latest `compounded` event per finding hash in the run under `origin`. */
export function latestCompounded(log: RunLog, origin: number | undefined): Array<[string, number]> {
  const out: Array<[string, number]> = [];
  for (const [hash, list] of log.compounded) {
    let best: [number, number] | undefined;
    for (let i = 0; i < list.length; i += 3) {
      if (matches(list[i], origin) && (best?.[1] ?? -1) < (list[i + 2] as number)) best = [list[i + 1] as number, list[i + 2] as number];
    }
    if (best) out.push([hash, best[0]]);
  }
  return out;
}
