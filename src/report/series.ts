/**
 * The report's time axis: runs in the order they happened, and per entry and per agent what each
 * run injected, withheld and confirmed. Pure over ledger events (sorted by time, as `readLedger`
 * returns them).
 */
import { agentKey } from "../entry/agent-name.js";
import type { LedgerEvent } from "../ledger/events.js";
import { runIdKey } from "../ledger/run-id.js";
import { runKey } from "../ledger/runs.js";
import type { ReportRun, RunPoint } from "./types.js";

/** One agent as the series see it (name as first written, totals over the whole ledger). */
export type AgentSeries = {
  name: string;
  totals: { injected: number; heldOut: number; independent: number; primed: number; compounded: number; runs: number };
  series: RunPoint[];
};

export type Series = {
  runs: ReportRun[];
  /** Per entry id, its points (runs with nothing left out), by run. */
  entries: Map<string, RunPoint[]>;
  /** Per agent key (case- and whitespace-insensitive), by name. */
  agents: AgentSeries[];
};

type RunAcc = { id: string; origin?: string; time: string; agents: Set<string>; injected: Set<string>; heldOut: Set<string>; independent: number; primed: number };
type Points = Map<number, RunPoint>;

function point(map: Points, run: number): RunPoint {
  let p = map.get(run);
  if (!p) map.set(run, (p = { run, injected: 0, heldOut: 0, independent: 0, primed: 0 }));
  return p;
}

function sorted(map: Points): RunPoint[] {
  return [...map.values()].sort((a, b) => a.run - b.run);
}

/**
 * Number the runs by first appearance. A run is its id plus its origin; an event without an origin
 * (written before origins were recorded) joins the latest run of that id, as provenance does.
 */
function runNumbering() {
  const byKey = new Map<string, number>();
  const latestById = new Map<string, number>();
  const runs: RunAcc[] = [];
  return {
    runs,
    of(event: { run: string; origin?: string; time: string }): number {
      if (!event.origin) {
        const latest = latestById.get(runIdKey(event.run));
        if (latest !== undefined) return latest;
      }
      const key = runKey(event.run, event.origin);
      let n = byKey.get(key);
      if (n === undefined) {
        n = runs.length;
        byKey.set(key, n);
        runs.push({ id: event.run, ...(event.origin ? { origin: event.origin } : {}), time: event.time, agents: new Set(), injected: new Set(), heldOut: new Set(), independent: 0, primed: 0 });
      }
      latestById.set(runIdKey(event.run), n);
      return n;
    },
  };
}

/** Axis labels: the run id, plus the branch (then the whole origin) where two runs share an id. */
function labels(runs: readonly RunAcc[]): string[] {
  const count = (f: (r: RunAcc) => string) => {
    const m = new Map<string, number>();
    for (const r of runs) m.set(f(r), (m.get(f(r)) ?? 0) + 1);
    return m;
  };
  const ids = count((r) => r.id);
  const branch = (r: RunAcc) => `${r.id} (${(r.origin ?? "").split("@")[0] || "no origin"})`;
  const branches = count(branch);
  return runs.map((r) => ((ids.get(r.id) ?? 0) < 2 ? r.id : (branches.get(branch(r)) ?? 0) < 2 ? branch(r) : `${r.id} (${r.origin ?? "no origin"})`));
}

export function buildSeries(events: readonly LedgerEvent[]): Series {
  const numbering = runNumbering();
  const entries = new Map<string, Points>();
  const agents = new Map<string, { name: string; points: Points; runs: Set<number>; compounded: number; totals: AgentSeries["totals"] }>();
  const entryPoints = (id: string) => {
    let m = entries.get(id);
    if (!m) entries.set(id, (m = new Map()));
    return m;
  };
  const agentOf = (name: string) => {
    const key = agentKey(name);
    let a = agents.get(key);
    if (!a) agents.set(key, (a = { name, points: new Map(), runs: new Set(), compounded: 0, totals: { injected: 0, heldOut: 0, independent: 0, primed: 0, compounded: 0, runs: 0 } }));
    return a;
  };
  // (run, agent, entry) pairs already counted: a repeated inject call, or a union merge's duplicate, counts once.
  const seen = new Set<string>();
  const once = (...parts: Array<string | number>) => {
    const key = parts.join("\u0000");
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  };

  for (const event of events) {
    if (event.type === "injected" || event.type === "held-out") {
      const run = numbering.of(event);
      const acc = numbering.runs[run] as RunAcc;
      const agent = agentOf(event.agent);
      const key = agentKey(event.agent);
      acc.agents.add(key);
      agent.runs.add(run);
      const ids = event.type === "injected" ? event.entries : [event.entry];
      for (const id of ids) {
        if (!once(event.type, run, key, id)) continue;
        if (event.type === "injected") {
          acc.injected.add(id);
          point(entryPoints(id), run).injected += 1;
          point(agent.points, run).injected += 1;
          agent.totals.injected += 1;
        } else {
          acc.heldOut.add(`${key}\u0000${id}`);
          point(entryPoints(id), run).heldOut += 1;
          point(agent.points, run).heldOut += 1;
          agent.totals.heldOut += 1;
        }
      }
    } else if (event.type === "confirmed") {
      const run = numbering.of(event);
      const key = agentKey(event.agent);
      // Like the projection: a retried or merged (run, agent, finding) confirms once.
      if (!once("confirmed", run, key, event.entry, event.findingHash ?? event.eventId)) continue;
      const acc = numbering.runs[run] as RunAcc;
      const agent = agentOf(event.agent);
      agent.runs.add(run);
      const which = event.provenance === "independent" ? "independent" : "primed";
      acc[which] += 1;
      point(entryPoints(event.entry), run)[which] += 1;
      point(agent.points, run)[which] += 1;
      agent.totals[which] += 1;
    } else if (event.type === "compounded") {
      const run = numbering.of(event);
      for (const name of new Set(event.agents.map(agentKey))) {
        const agent = agentOf(event.agents.find((a) => agentKey(a) === name) ?? name);
        agent.runs.add(run);
        agent.totals.compounded += 1;
      }
    }
  }

  const names = labels(numbering.runs);
  const runs: ReportRun[] = numbering.runs.map((r, i) => ({
    id: r.id,
    ...(r.origin ? { origin: r.origin } : {}),
    label: names[i] as string,
    time: r.time,
    agents: r.agents.size,
    injected: r.injected.size,
    heldOut: r.heldOut.size,
    independent: r.independent,
    primed: r.primed,
  }));
  return {
    runs,
    entries: new Map([...entries].map(([id, m]) => [id, sorted(m)])),
    agents: [...agents.values()]
      .map((a) => ({ name: a.name, totals: { ...a.totals, runs: a.runs.size }, series: sorted(a.points) }))
      .sort((a, b) => a.name.localeCompare(b.name)),
  };
}

/**
 * Keep the last `count` runs on the axis: points of earlier runs are dropped and the rest renumbered.
 * Counters and totals are not windowed (they are the ledger's).
 */
export function windowRuns(series: Series, count: number | undefined): Series {
  if (count === undefined || count >= series.runs.length) return series;
  const first = series.runs.length - count;
  const shift = (points: RunPoint[]) => points.filter((p) => p.run >= first).map((p) => ({ ...p, run: p.run - first }));
  return {
    runs: series.runs.slice(first),
    entries: new Map([...series.entries].map(([id, points]) => [id, shift(points)])),
    agents: series.agents.map((a) => ({ ...a, series: shift(a.series) })),
  };
}
