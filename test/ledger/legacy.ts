/**
 * The event-list implementations the fold (src/ledger/state.ts) replaced, as of commit abc4963:
 * the oracle of the equivalence tests. Do not "fix" them: they define what the fold must answer.
 */
import { agentKey } from "../../src/entry/agent-name.js";
import { frontmatterInstant, resetsCounter } from "../../src/ledger/clock.js";
import type { AnchorFingerprint, LedgerEvent, VerifiedEvent } from "../../src/ledger/events.js";
import type { EntryConfirmationInfo, EntryLedgerView, ProjectOptions } from "../../src/ledger/projections.js";
import { runKey, sameRun, type RunRecord, type RunRef } from "../../src/ledger/run-ref.js";

export function legacyProjectLedger(events: readonly LedgerEvent[], entries: readonly EntryConfirmationInfo[], options: ProjectOptions = {}): Map<string, EntryLedgerView> {
  const index = new Map<string, number>();
  const ids: string[] = [];
  const frontmatter: Array<string | undefined> = [];
  for (const { id, lastConfirmed } of entries) {
    if (index.has(id)) continue;
    index.set(id, ids.length);
    ids.push(id);
    frontmatter.push(lastConfirmed);
  }
  const count = ids.length;
  const independent = new Uint32Array(count);
  const primed = new Uint32Array(count);
  const lastReset: Array<string | undefined> = ids.map(() => undefined);
  const lastInjected: Array<string | undefined> = ids.map(() => undefined);
  const lastInjectedRun: Array<string | undefined> = ids.map(() => undefined);

  // Pass 1: confirmations and resets; number the runs that inject or withhold something.
  const runIndex = new Map<string, number>();
  const runOf = new Int32Array(events.length);
  const numberRun = (run: string, origin: string | undefined): number => {
    const key = runKey(run, origin);
    let n = runIndex.get(key);
    if (n === undefined) {
      n = runIndex.size;
      runIndex.set(key, n);
    }
    return n;
  };
  // (entry, run, agent) as one number, so that the sets below hold no strings (100k events, mostly confirmations).
  const agentNumbers = new Map<string, number>();
  const agentKeys = new Map<string, number>();
  const agentNo = (agent: string): number => {
    let n = agentNumbers.get(agent);
    if (n === undefined) {
      const key = agentKey(agent);
      n = agentKeys.get(key) ?? agentKeys.size;
      agentKeys.set(key, n);
      agentNumbers.set(agent, n);
    }
    return n;
  };
  const pairCode = (e: number, run: number, agent: number): number => (run * count + e) * AGENT_SLOTS + (agent % AGENT_SLOTS);
  /** Per finding hash, the pair (or pairs) that confirmed it: a retried or union-merged (run, agent, finding) counts once. */
  const seenConfirmations = new Map<string, number | Set<number>>();
  const heldOutPairs = new Set<number>();
  const independentPairs: number[] = [];
  let pairs = 0;
  for (let i = 0; i < events.length; i++) {
    const event = events[i] as LedgerEvent;
    if (event.type === "injected") {
      runOf[i] = numberRun(event.run, event.origin);
      pairs += event.entries.length;
      continue;
    }
    if (!("entry" in event)) continue;
    const e = index.get(event.entry);
    if (e === undefined) continue;
    if (event.type === "held-out") {
      runOf[i] = numberRun(event.run, event.origin);
      heldOutPairs.add(pairCode(e, runOf[i] as number, agentNo(event.agent)));
      continue;
    }
    if (event.type === "confirmed") {
      const code = pairCode(e, numberRun(event.run, event.origin), agentNo(event.agent));
      if (event.findingHash !== undefined && repeated(seenConfirmations, event.findingHash, code)) continue;
      const counter = event.provenance === "independent" ? independent : primed;
      counter[e] = (counter[e] ?? 0) + 1;
      if (event.provenance === "independent") independentPairs.push(code);
    }
    if (resetsCounter(event)) {
      const current = lastReset[e];
      if (current === undefined || event.time > current) lastReset[e] = event.time;
    }
  }
  /** Per entry: the last confirmation instant — the ledger's last reset or what the frontmatter date adds to it. */
  const since = ids.map((_, e) => {
    const reset = lastReset[e];
    const date = frontmatterInstant(frontmatter[e], reset, options.today);
    return date !== undefined && (reset === undefined || date > reset) ? date : reset;
  });

  // Pass 2: every (entry, run) injection, flagged when strictly after the last confirmation; withholdings after it, per entry.
  const pairEntry = new Int32Array(pairs);
  const pairRun = new Int32Array(pairs);
  const pairAfter = new Uint8Array(pairs);
  const heldAfter = new Map<number, number[]>();
  let n = 0;
  for (let i = 0; i < events.length; i++) {
    const event = events[i] as LedgerEvent;
    if (event.type === "held-out") {
      const e = index.get(event.entry);
      const confirmed = e === undefined ? undefined : since[e];
      if (e !== undefined && (confirmed === undefined || event.time > confirmed)) heldAfter.set(e, [...(heldAfter.get(e) ?? []), runOf[i] as number]);
      continue;
    }
    if (event.type !== "injected") continue;
    for (const id of event.entries) {
      const e = index.get(id);
      if (e === undefined) continue;
      pairEntry[n] = e;
      pairRun[n] = runOf[i] as number;
      const confirmed = since[e];
      pairAfter[n] = confirmed === undefined || event.time > confirmed ? 1 : 0;
      n += 1;
      const last = lastInjected[e];
      if (last === undefined || event.time >= last) {
        lastInjected[e] = event.time;
        lastInjectedRun[e] = event.run;
      }
    }
  }
  const { injectedRuns, unconfirmedRuns, heldOutRuns } = countDistinctRuns(pairEntry.subarray(0, n), pairRun, pairAfter, heldAfter, count, runIndex.size);
  const withheld = new Uint32Array(count);
  for (const code of heldOutPairs) {
    const e = Math.floor(code / AGENT_SLOTS) % count;
    withheld[e] = (withheld[e] ?? 0) + 1;
  }
  const found = new Uint32Array(count);
  for (const code of independentPairs) {
    if (!heldOutPairs.has(code)) continue;
    const e = Math.floor(code / AGENT_SLOTS) % count;
    found[e] = (found[e] ?? 0) + 1;
  }

  const result = new Map<string, EntryLedgerView>();
  for (let e = 0; e < count; e++) {
    const view: EntryLedgerView = {
      entry: ids[e] as string,
      unconfirmedRuns: unconfirmedRuns[e] ?? 0,
      heldOutRuns: heldOutRuns[e] ?? 0,
      confirmations: { independent: independent[e] ?? 0, primed: primed[e] ?? 0 },
      holdout: { withheld: withheld[e] ?? 0, found: found[e] ?? 0 },
      injectedRuns: injectedRuns[e] ?? 0,
    };
    const confirmed = since[e];
    if (confirmed !== undefined) view.lastConfirmedAt = confirmed;
    const last = lastInjected[e];
    if (last !== undefined) {
      view.lastInjected = last;
      view.lastInjectedRun = lastInjectedRun[e] as string;
    }
    result.set(view.entry, view);
  }
  return result;
}

/** Agent numbers folded into a pair code. A ledger with more distinct agents than this would let two agents share codes (one could hide the other's identical finding in the same run). */
const AGENT_SLOTS = 4096;

/** True when `code` already confirmed `hash`; records it otherwise. */
function repeated(seen: Map<string, number | Set<number>>, hash: string, code: number): boolean {
  const known = seen.get(hash);
  if (known === undefined) {
    seen.set(hash, code);
    return false;
  }
  if (typeof known === "number") {
    if (known === code) return true;
    seen.set(hash, new Set([known, code]));
    return false;
  }
  if (known.has(code)) return true;
  known.add(code);
  return false;
}

/**
 * Distinct runs per entry, over all pairs and over the pairs flagged "after". Linear: pairs are
 * bucketed by entry (a counting sort), then each bucket marks the runs it has seen in an array
 * stamped with the entry's number, so no set is allocated per entry.
 */
function countDistinctRuns(
  pairEntry: Int32Array,
  pairRun: Int32Array,
  pairAfter: Uint8Array,
  heldAfter: ReadonlyMap<number, readonly number[]>,
  count: number,
  runs: number,
): { injectedRuns: Uint32Array; unconfirmedRuns: Uint32Array; heldOutRuns: Uint32Array } {
  const start = new Int32Array(count + 1);
  for (const e of pairEntry) start[e + 1] = (start[e + 1] ?? 0) + 1;
  for (let e = 0; e < count; e++) start[e + 1] = (start[e + 1] ?? 0) + (start[e] ?? 0);
  const cursor = start.slice(0, count);
  const order = new Int32Array(pairEntry.length);
  for (let p = 0; p < pairEntry.length; p++) {
    const e = pairEntry[p] as number;
    const at = cursor[e] as number;
    order[at] = p;
    cursor[e] = at + 1;
  }
  const seenAny = new Int32Array(runs).fill(-1);
  const seenAfter = new Int32Array(runs).fill(-1);
  const seenHeld = new Int32Array(runs).fill(-1);
  const injectedRuns = new Uint32Array(count);
  const unconfirmedRuns = new Uint32Array(count);
  const heldOutRuns = new Uint32Array(count);
  for (let e = 0; e < count; e++) {
    let any = 0;
    let after = 0;
    for (let k = start[e] as number, end = start[e + 1] as number; k < end; k++) {
      const p = order[k] as number;
      const run = pairRun[p] as number;
      if (seenAny[run] !== e) {
        seenAny[run] = e;
        any += 1;
      }
      if (pairAfter[p] === 1 && seenAfter[run] !== e) {
        seenAfter[run] = e;
        after += 1;
      }
    }
    injectedRuns[e] = any;
    unconfirmedRuns[e] = after;
    // A run that withheld the entry from one agent but injected it into another already counts as injected.
    let held = 0;
    for (const run of heldAfter.get(e) ?? []) {
      if (seenAfter[run] === e || seenHeld[run] === e) continue;
      seenHeld[run] = e;
      held += 1;
    }
    heldOutRuns[e] = held;
  }
  return { injectedRuns, unconfirmedRuns, heldOutRuns };
}

export function legacyInjectionsForRun(events: readonly LedgerEvent[], run: string | RunRef, agent?: string): string[] {
  const ref = typeof run === "string" ? { run } : run;
  const key = agent === undefined ? undefined : agentKey(agent);
  const ids = new Set<string>();
  for (const event of events) {
    if (event.type !== "injected" || !sameRun(event, ref)) continue;
    if (key !== undefined && agentKey(event.agent) !== key) continue;
    for (const id of event.entries) ids.add(id);
  }
  return [...ids];
}

export function legacyHeldOutForRun(events: readonly LedgerEvent[], run: RunRef, agent?: string): string[] {
  const key = agent === undefined ? undefined : agentKey(agent);
  const ids = new Set<string>();
  for (const event of events) {
    if (event.type !== "held-out" || !sameRun(event, run)) continue;
    if (key !== undefined && agentKey(event.agent) !== key) continue;
    ids.add(event.entry);
  }
  return [...ids];
}

export function legacyRunRecord(events: readonly LedgerEvent[], run: RunRef): RunRecord {
  const record: RunRecord = { injected: false, agents: new Set() };
  for (const event of events) {
    if ((event.type === "injected" || event.type === "held-out") && sameRun(event, run)) {
      record.injected = true;
      record.agents.add(agentKey(event.agent));
    }
  }
  return record;
}

export function legacyKnownRuns(events: readonly LedgerEvent[]): string[] {
  const seen = new Set<string>();
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i] as LedgerEvent;
    if (event.type === "injected") seen.add(event.run);
  }
  return [...seen];
}

/** src/lifecycle/record.ts */
export function legacyRecordedFindings(events: readonly LedgerEvent[], run: RunRef): Map<string, string> {
  const out = new Map<string, string>();
  for (const event of events) {
    if (event.type === "confirmed" && event.findingHash !== undefined && sameRun(event, run)) out.set(`${agentKey(event.agent)}\u0000${event.findingHash}`, event.entry);
  }
  return out;
}

/** The plain reading of LedgerState.recordedCitations: every (agent, finding hash, entry) confirmed in the run. */
export function legacyRecordedCitations(events: readonly LedgerEvent[], run: RunRef): Set<string> {
  const out = new Set<string>();
  for (const event of events) {
    if (event.type === "confirmed" && event.findingHash !== undefined && sameRun(event, run)) out.add(`${agentKey(event.agent)}\u0000${event.findingHash}\u0000${event.entry}`);
  }
  return out;
}

/** src/lifecycle/compound.ts */
export function legacyCompoundedFindings(events: readonly LedgerEvent[], run: RunRef): Map<string, string> {
  const out = new Map<string, string>();
  for (const event of events) if (event.type === "compounded" && event.findingHash !== undefined && sameRun(event, run)) out.set(event.findingHash, event.entry);
  return out;
}

/** src/lifecycle/compound.ts isInterrupted */
export function legacyNames(events: readonly LedgerEvent[], id: string): boolean {
  return events.some((e) => "entry" in e && e.entry === id);
}

/** src/verify/records.ts */
export function legacyVerificationStates(events: readonly LedgerEvent[]): Map<string, { latest: VerifiedEvent; confirmedAfter: boolean }> {
  const out = new Map<string, { latest: VerifiedEvent; confirmedAfter: boolean }>();
  for (const event of events) {
    if (event.type === "verified") out.set(event.entry, { latest: event, confirmedAfter: false });
    else if (event.type === "manual-confirmed" || event.type === "restored" || (event.type === "confirmed" && event.provenance === "independent")) {
      const state = out.get(event.entry);
      if (state) state.confirmedAfter = true;
    }
  }
  return out;
}

/** src/anchors/fingerprint.ts */
export function legacyLatestFingerprints(events: readonly LedgerEvent[]): Map<string, { date: string; prints: AnchorFingerprint[] }> {
  const out = new Map<string, { date: string; prints: AnchorFingerprint[] }>();
  for (const event of events) {
    if ((event.type !== "confirmed" && event.type !== "manual-confirmed") || !event.fingerprints) continue;
    if (event.type === "confirmed" && event.provenance !== "independent") continue;
    out.set(event.entry, { date: event.time.slice(0, 10), prints: event.fingerprints });
  }
  return out;
}

/** src/lifecycle/conflicts.ts: the last archive and the last confirmation per entry (the earliest of equal times). */
export function legacyConflictEvents(events: readonly LedgerEvent[]): { archived: Map<string, LedgerEvent>; confirmed: Map<string, LedgerEvent> } {
  const archived = new Map<string, LedgerEvent>();
  const confirmed = new Map<string, LedgerEvent>();
  for (const event of events) {
    if (!("entry" in event)) continue;
    if (event.type === "archived") {
      const seen = archived.get(event.entry);
      if (!seen || event.time > seen.time) archived.set(event.entry, event);
      continue;
    }
    const describes = (event.type === "confirmed" && event.provenance === "independent") || event.type === "manual-confirmed" || event.type === "hand-confirmed" || event.type === "restored";
    if (!describes) continue;
    const seen = confirmed.get(event.entry);
    if (!seen || event.time > seen.time) confirmed.set(event.entry, event);
  }
  return { archived, confirmed };
}
