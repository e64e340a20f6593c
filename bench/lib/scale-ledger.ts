/**
 * A realistic ledger for a generated knowledge base: a few hundred past review runs of 4 agents, each
 * with its injections (≤ 5 entries per agent), held-out entries, and the run's confirmations (mostly
 * primed re-discoveries of what was injected, some independent ones carrying anchor fingerprints), plus
 * one `archived` event per archived entry. Written with the library's own `appendEvents`, so every line
 * is exactly what cairn writes and passes its validation.
 *
 * No entry is injected in more than MAX_PAST_INJECTIONS past runs, so the bench's own injections never
 * push an entry to decay or holdout (which would make one repetition do different work from the next).
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { hashLines } from "../../src/anchors/fingerprint.js";
import { appendEvents, type NewEvent } from "../../src/ledger/append.js";
import type { AnchorFingerprint } from "../../src/ledger/events.js";
import { random } from "./corpus.js";

/** Past injections of one entry at most (decay is at 10 runs, near-decay warnings from 7, holdout at 9). */
export const MAX_PAST_INJECTIONS = 3;

export type LedgerPlan = {
  /** Past review runs. */
  runs: number;
  /** Total events to aim for (confirmations per run are derived from it). */
  events: number;
};

/** ~30k events at 10k entries, ~100k at 100k; a few hundred runs. */
export function ledgerPlan(entries: number): LedgerPlan {
  if (entries >= 50_000) return { runs: 600, events: entries };
  return { runs: Math.max(30, Math.round((300 * entries) / 10_000)), events: 3 * entries };
}

export type LedgerEntry = { id: string; agent: string; text: string; archived: boolean };

export type LedgerSummary = { events: number; runs: number; byType: Record<string, number> };

const ANCHOR = /^- `?([^\s:`]+):(\d+)(?:-(\d+))?/m;

/** The first anchor of an entry's text with a fingerprint of the lines it points at (as a confirmation records it). */
async function fingerprint(root: string, text: string, files: Map<string, string[]>): Promise<AnchorFingerprint | undefined> {
  const m = ANCHOR.exec(text);
  if (!m) return undefined;
  const rel = m[1]!;
  const start = Number(m[2]);
  const end = Number(m[3] ?? m[2]);
  let lines = files.get(rel);
  if (!lines) {
    lines = (await readFile(path.join(root, rel), "utf8").catch(() => "")).split("\n");
    files.set(rel, lines);
  }
  return { path: rel, start, end, hash: hashLines(lines, start, end) };
}

/** Append the generated history to `<root>/knowledge/.ledger/`. */
export async function writeLedger(root: string, entries: readonly LedgerEntry[], plan: LedgerPlan, seed = 11): Promise<LedgerSummary> {
  const rand = random(seed);
  const pick = (n: number) => Math.floor(rand() * n);
  const active = entries.filter((e) => !e.archived);
  const archived = entries.filter((e) => e.archived);
  const byAgent = new Map<string, LedgerEntry[]>();
  for (const e of active) byAgent.set(e.agent, [...(byAgent.get(e.agent) ?? []), e]);
  const agents = [...byAgent.keys()].sort().slice(0, 4);
  const injections = new Map<string, number>();
  const files = new Map<string, string[]>();
  const confirmationsPerRun = Math.max(1, Math.round((plan.events - archived.length - plan.runs * 6) / plan.runs));
  const start = Date.parse("2026-01-05T08:00:00.000Z");
  const span = Date.parse("2026-11-01T00:00:00.000Z") - start;
  const ledgerDir = path.join(root, "knowledge", ".ledger");
  const byType: Record<string, number> = {};
  let total = 0;
  const flush = async (events: NewEvent[]) => {
    for (const e of events) byType[e.type] = (byType[e.type] ?? 0) + 1;
    total += events.length;
    await appendEvents(ledgerDir, events);
  };

  for (let r = 0; r < plan.runs; r++) {
    const run = `pr-${1000 + r}`;
    const t0 = start + Math.floor((span * r) / plan.runs);
    let k = 0;
    const at = () => new Date(t0 + 1_000 * k++).toISOString();
    const events: NewEvent[] = [];
    const injected: Array<{ agent: string; entry: LedgerEntry }> = [];
    for (const agent of agents) {
      const pool = byAgent.get(agent)!;
      const chosen = new Set<LedgerEntry>();
      for (let tries = 0; chosen.size < 1 + pick(5) && tries < 50; tries++) {
        const e = pool[pick(pool.length)]!;
        if ((injections.get(e.id) ?? 0) < MAX_PAST_INJECTIONS) chosen.add(e);
      }
      for (const e of chosen) injections.set(e.id, (injections.get(e.id) ?? 0) + 1);
      if (chosen.size) events.push({ type: "injected", run, agent, entries: [...chosen].map((e) => e.id), time: at(), actor: "review-bot" });
      for (const e of chosen) injected.push({ agent, entry: e });
      // The holdout withholds an entry near decay from about one agent per run.
      if (rand() < 0.25) events.push({ type: "held-out", run, agent, entry: pool[pick(pool.length)]!.id, time: at(), actor: "review-bot" });
    }
    for (let c = 0; c < confirmationsPerRun; c++) {
      // Half re-discover what was injected (primed), the rest are independent findings of other entries.
      const primed = injected.length > 0 && rand() < 0.5;
      const { agent, entry } = primed ? injected[pick(injected.length)]! : (() => {
        const agent = agents[pick(agents.length)]!;
        const pool = byAgent.get(agent)!;
        return { agent, entry: pool[pick(pool.length)]! };
      })();
      const hash = (rand() * 2 ** 52).toString(16).padStart(16, "0").slice(0, 16);
      const print = primed ? undefined : await fingerprint(root, entry.text, files);
      events.push({
        type: "confirmed",
        run,
        agent,
        entry: entry.id,
        provenance: primed ? "primed" : "independent",
        findingHash: hash,
        score: Math.round((0.5 + rand() * 0.5) * 1000) / 1000,
        ...(print ? { fingerprints: [print] } : {}),
        time: at(),
        actor: "review-bot",
      });
    }
    await flush(events);
  }
  // Every archived entry was archived by decay in one of the runs.
  const archive: NewEvent[] = archived.map((e, i) => ({
    type: "archived",
    entry: e.id,
    reason: "decayed: injected in 10 runs without an independent confirmation",
    run: `pr-${1000 + Math.floor((i * plan.runs) / Math.max(1, archived.length))}`,
    time: new Date(start + Math.floor((span * i) / Math.max(1, archived.length)) + 500).toISOString(),
    actor: "review-bot",
  }));
  for (let i = 0; i < archive.length; i += 1_000) await flush(archive.slice(i, i + 1_000));
  return { events: total, runs: plan.runs, byType };
}
