/**
 * Build the report's data model (pure): `cairn status --all` rows, the entries' text, their anchor
 * diagnostics and the ledger events in; every entry with its decay, confirmations over runs,
 * holdout evidence, verification and drift, per-agent series and the lifecycle timeline out.
 */
import { anchorWarning } from "../anchors/entry.js";
import { holdoutRuns, type CairnConfig } from "../config.js";
import type { Diagnostic } from "../entry/diagnostic.js";
import type { Entry } from "../entry/types.js";
import type { LedgerEvent } from "../ledger/events.js";
import { nearDecayAt } from "../lifecycle/decay.js";
import type { EntryStatusRow, StatusReport } from "../lifecycle/status.js";
import { verificationStates, verificationWarning, verifyHashOf, type VerificationState as Recorded } from "../verify/records.js";
import { buildSeries, windowRuns } from "./series.js";
import { buildTimeline } from "./timeline.js";
import type { DecayState, DriftState, ReportEntry, ReportModel, ReportOptions, ReportSummary, RunPoint, VerificationState } from "./types.js";

export type { ReportOptions } from "./types.js";

export type ReportInput = {
  /** `buildStatus(…, { all: true })`: active and archived rows. */
  status: StatusReport;
  /** The parsed entries (title, finding, tags, Verify section) by id. */
  entries: readonly Entry[];
  /** The lint's diagnostics (rule severities and inline disables applied): anchor rules give the drift state. */
  diagnostics: readonly Diagnostic[];
  events: readonly LedgerEvent[];
  config: Pick<CairnConfig, "decayAfterRuns" | "nearDecayRatio" | "holdout" | "maxPerAgent">;
  /** The project directory's name. */
  project: string;
  now: Date;
};

/** Anchor rules that mean the anchor points at nothing (whatever severity the project gave them). */
const UNRESOLVED = new Set(["anchor-unresolved", "anchor-outside-repo"]);

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function shorten(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;
}

function titleOf(entry: Entry | undefined, id: string): string {
  const title = entry?.frontmatter.title;
  if (typeof title === "string" && title.trim()) return shorten(oneLine(title), 140);
  const finding = oneLine(entry?.finding.text ?? "");
  const sentence = /^(.+?[.!?])(\s|$)/.exec(finding)?.[1] ?? finding;
  return shorten(sentence, 110) || id;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

function decayState(row: EntryStatusRow, nearAt: number): DecayState {
  if (row.state === "archived") return "archived";
  if (row.limit === "past-limit") return "past-limit";
  if (row.limit === "last-chance") return "last-chance";
  return row.unconfirmedRuns >= nearAt ? "near" : "ok";
}

function verificationOf(entry: Entry | undefined, recorded: Recorded | undefined): ReportEntry["verification"] {
  if (!recorded) return { state: "never", time: null, message: null };
  const time = recorded.latest.time;
  if (!entry) return { state: recorded.latest.result, time, message: null };
  const message = verificationWarning(entry, recorded) ?? null;
  // A failure confirmed since, or steps changed since, no longer stands.
  const current = recorded.latest.verifyHash === verifyHashOf(entry) && !(recorded.latest.result === "failed" && recorded.confirmedAfter);
  const state: VerificationState = current ? recorded.latest.result : "outdated";
  return { state, time, message };
}

function driftOf(problems: readonly Diagnostic[]): ReportEntry["drift"] {
  const anchors = problems.filter((d) => d.rule.startsWith("anchor-"));
  let state: DriftState = "ok";
  if (anchors.some((d) => UNRESOLVED.has(d.rule))) state = "unresolved";
  else if (anchors.some((d) => d.rule !== "anchor-external")) state = "drifted";
  else if (anchors.length) state = "external";
  return {
    state,
    problems: anchors.map((d) => ({ rule: d.rule, severity: d.severity, line: d.line, message: UNRESOLVED.has(d.rule) ? d.message : anchorWarning(d) })),
  };
}

function summarise(entries: readonly ReportEntry[], model: Pick<ReportModel, "conflicts">, totals: { runs: number; agents: number; independent: number; primed: number }): ReportSummary {
  const active = entries.filter((e) => e.state === "active");
  const count = (f: (e: ReportEntry) => boolean) => active.filter(f).length;
  return {
    active: active.length,
    archived: entries.length - active.length,
    nearDecay: count((e) => e.decay.state === "near"),
    lastChance: count((e) => e.decay.state === "last-chance"),
    pastLimit: count((e) => e.decay.state === "past-limit"),
    evidence: {
      independent: count((e) => e.holdout.evidence === "independent"),
      "primed-only": count((e) => e.holdout.evidence === "primed-only"),
      untested: count((e) => e.holdout.evidence === "untested"),
    },
    verificationFailed: count((e) => e.verification.state === "failed"),
    drifted: count((e) => e.drift.state === "drifted"),
    unresolved: count((e) => e.drift.state === "unresolved"),
    runs: totals.runs,
    agents: totals.agents,
    confirmations: { independent: totals.independent, primed: totals.primed },
    holdout: {
      withheld: entries.reduce((n, e) => n + e.holdout.withheld, 0),
      found: entries.reduce((n, e) => n + e.holdout.found, 0),
    },
    conflicts: model.conflicts.length,
  };
}

export function buildReportModel(input: ReportInput, options: ReportOptions = {}): ReportModel {
  const { config } = input;
  const nearAt = nearDecayAt(config);
  const byId = new Map(input.entries.map((e) => [e.id, e]));
  const byFile = new Map<string, Diagnostic[]>();
  for (const d of input.diagnostics) byFile.set(d.file, [...(byFile.get(d.file) ?? []), d]);
  const verifications = verificationStates(input.events);
  const all = buildSeries(input.events);
  const series = windowRuns(all, options.runs);

  const entries: ReportEntry[] = input.status.entries.map((row) => {
    const entry = byId.get(row.id);
    const points: RunPoint[] = series.entries.get(row.id) ?? [];
    return {
      id: row.id,
      title: titleOf(entry, row.id),
      finding: shorten(oneLine(entry?.finding.text ?? ""), 280),
      path: row.path,
      state: row.state,
      status: row.status,
      provenance: row.provenance,
      lastConfirmed: row.lastConfirmed,
      tags: strings(entry?.frontmatter.tags),
      agents: strings(entry?.frontmatter.agents),
      decay: { state: decayState(row, nearAt), runs: row.unconfirmedRuns, limit: row.decayAfterRuns, nearAt, heldOutRuns: row.heldOutRuns, holdoutRuns: row.holdoutRuns },
      confirmations: { ...row.confirmations },
      holdout: { ...row.holdout, evidence: row.evidence },
      verification: verificationOf(entry, verifications.get(row.id)),
      drift: driftOf(byFile.get(row.path) ?? []),
      lastInjected: row.lastInjected,
      archived: row.archived,
      archivedReason: row.archivedReason,
      warnings: [...row.warnings],
      series: points,
    };
  });

  const conflicts = input.status.conflicts.map((c) => ({ id: c.id, kind: c.kind, message: c.message, fix: c.fix }));
  const confirmed = all.runs.reduce((n, r) => ({ independent: n.independent + r.independent, primed: n.primed + r.primed }), { independent: 0, primed: 0 });
  return {
    version: 1,
    generatedAt: input.now.toISOString(),
    project: input.project,
    config: { decayAfterRuns: config.decayAfterRuns, nearDecayRatio: config.nearDecayRatio, holdout: config.holdout, holdoutRuns: holdoutRuns(config), maxPerAgent: config.maxPerAgent },
    summary: summarise(entries, { conflicts }, { runs: all.runs.length, agents: all.agents.length, ...confirmed }),
    runs: series.runs,
    entries,
    agents: series.agents,
    timeline: buildTimeline(input.events),
    conflicts,
    warnings: [...input.status.warnings],
  };
}
