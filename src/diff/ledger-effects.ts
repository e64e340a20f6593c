/**
 * What a change's new ledger events do to the entries they name: the ledger projected at BASE and at HEAD (the same
 * projection and decay rule the lifecycle uses), compared entry by entry. Appended events are legitimate (CI commits
 * its runs' events), so they are not refused; but fabricated `injected` events withhold and archive any entry without
 * touching it, so the reviewer must see whose counter moved, and an entry pushed past its limit is a warning
 * (`ledger-decay-pushed`). Pure.
 */
import type { CairnConfig } from "../config.js";
import { diagnostic, type Diagnostic } from "../entry/diagnostic.js";
import { type EntryLedgerView, type LedgerEvent, projectLedger } from "../ledger/index.js";
import { limitOf, nearDecayAt } from "../lifecycle/decay.js";
import type { EntryFacts } from "./entry-facts.js";
import type { AddedEvent } from "./ledger.js";
import { pushedText } from "./effect-text.js";
import type { LedgerCounters, LedgerEffect } from "./types.js";

/** Diagnostics for entries pushed past their limit, at most; the last one says how many more there are. */
const MAX_PUSHED_PROBLEMS = 20;

export type EffectInput = {
  /** Every ledger event at BASE, and at HEAD. */
  before: readonly LedgerEvent[];
  after: readonly LedgerEvent[];
  /** The events HEAD adds (by event id), with where they are. */
  added: readonly AddedEvent[];
  /** The entries those events name, at BASE and at HEAD (absent: no file has the id). */
  entriesBefore: ReadonlyMap<string, EntryFacts>;
  entriesAfter: ReadonlyMap<string, EntryFacts>;
  config: Pick<CairnConfig, "decayAfterRuns" | "nearDecayRatio" | "holdout">;
  /** Today (UTC) for the projection: a `lastConfirmed` after it grants nothing. */
  today: string;
};

/** Entry ids an event names (the entries it injected, the entry it is about). */
export function namedIds(event: LedgerEvent): string[] {
  if (event.type === "injected") return [...event.entries];
  return "entry" in event && typeof event.entry === "string" ? [event.entry] : [];
}

/** Every entry whose counters or decay standing the change moves, those it pushed past the limit first, then by id. */
export function ledgerEffects(input: EffectInput): { effects: LedgerEffect[]; problems: Diagnostic[] } {
  const byId = new Map<string, AddedEvent[]>();
  for (const added of input.added) {
    for (const id of new Set(namedIds(added.event))) byId.set(id, [...(byId.get(id) ?? []), added]);
  }
  if (byId.size === 0) return { effects: [], problems: [] };
  const info = (facts: ReadonlyMap<string, EntryFacts>) =>
    [...byId.keys()].map((id) => {
      const lastConfirmed = facts.get(id)?.lastConfirmed;
      return lastConfirmed !== undefined ? { id, lastConfirmed } : { id };
    });
  const viewsBefore = projectLedger(input.before, info(input.entriesBefore), { today: input.today });
  const viewsAfter = projectLedger(input.after, info(input.entriesAfter), { today: input.today });
  const { config } = input;
  const near = nearDecayAt(config);
  const effects: LedgerEffect[] = [];
  for (const [id, events] of byId) {
    const was = counters(viewsBefore.get(id), config, near);
    const now = counters(viewsAfter.get(id), config, near);
    if (JSON.stringify(was) === JSON.stringify(now)) continue;
    const facts = input.entriesAfter.get(id);
    const state = facts?.state ?? "none";
    const runs = [...new Set(events.flatMap(({ event }) => ("run" in event && typeof event.run === "string" ? [event.run] : [])))];
    const types: Record<string, number> = {};
    for (const { event } of events) types[event.type] = (types[event.type] ?? 0) + 1;
    const pushed = state === "active" && now.standing === "past-limit" && was.standing !== "past-limit";
    const nearing = state === "active" && !pushed && now.standing !== "window" && was.standing === "window";
    effects.push({
      id,
      state,
      ...(facts ? { path: facts.path } : {}),
      before: was,
      after: now,
      decayAfterRuns: config.decayAfterRuns,
      ...(pushed ? { flag: "past-limit" as const } : nearing ? { flag: "near-decay" as const } : {}),
      events: Object.fromEntries(Object.entries(types).sort(([a], [b]) => (a < b ? -1 : 1))),
      runs: runs.length,
      sampleRuns: runs.slice(0, 3),
    });
  }
  const rank = (e: LedgerEffect) => (e.flag === "past-limit" ? 0 : e.flag === "near-decay" ? 1 : 2);
  effects.sort((a, b) => rank(a) - rank(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { effects, problems: pushedProblems(effects, byId) };
}

function counters(view: EntryLedgerView | undefined, config: EffectInput["config"], near: number): LedgerCounters {
  const v = view ?? { unconfirmedRuns: 0, heldOutRuns: 0, confirmations: { independent: 0, primed: 0 } };
  const limit = limitOf(v, config);
  const standing = limit.kind === "window" && v.unconfirmedRuns >= near ? "near-decay" : limit.kind;
  return { unconfirmedRuns: v.unconfirmedRuns, heldOutRuns: v.heldOutRuns, independent: v.confirmations.independent, primed: v.confirmations.primed, standing };
}

/** One warning per entry pushed past its limit, at the last new event naming it. */
function pushedProblems(effects: readonly LedgerEffect[], byId: ReadonlyMap<string, AddedEvent[]>): Diagnostic[] {
  const pushed = effects.filter((e) => e.flag === "past-limit");
  const problems = pushed.slice(0, MAX_PUSHED_PROBLEMS).map((e) => {
    const at = byId.get(e.id)!.at(-1)!;
    return diagnostic(at.file, "ledger-decay-pushed", "warning", `${pushedText(e)}; check that those runs happened — appended events are not refused (CI commits its runs' events), but a hand-written one withholds and archives an entry without touching it`, { line: at.line, column: 1 });
  });
  if (pushed.length > MAX_PUSHED_PROBLEMS) {
    const last = problems.at(-1)!;
    last.message += ` (and ${pushed.length - MAX_PUSHED_PROBLEMS} more entries pushed past their limit: run cairn diff --json to see them all)`;
  }
  return problems;
}
