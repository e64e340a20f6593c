/** `cairn status`: every entry with its decay counter, holdout, evidence, confirmations, conflicts and warnings (pure over loaded data). */
import { describeBlocking, gateVerdict } from "../check/gate.js";
import { holdoutRuns, type CairnConfig } from "../config.js";
import type { Diagnostic } from "../entry/diagnostic.js";
import type { EntryState, EntrySummary } from "../entry/types.js";
import type { EntryLedgerView, LedgerSource } from "../ledger/index.js";
import { byPathOrder } from "../store/files.js";
import { findConflicts, type Conflict } from "./conflicts.js";
import { limitOf, nearDecayAt, type Limit } from "./decay.js";
import type { EntryStatusRow, Evidence, StatusReport } from "../types/status.js";

export type { EntryStatusRow, Evidence, StatusReport } from "../types/status.js";

export type StatusInput = {
  entries: EntrySummary[];
  diagnostics: Diagnostic[];
  views: Map<string, EntryLedgerView>;
  /** The ledger (its folded state, or its events), for conflicts. */
  events: LedgerSource;
  config: Pick<CairnConfig, "decayAfterRuns" | "nearDecayRatio" | "holdout">;
  ledgerWarnings?: string[];
  /** More warnings per entry id (anchor drift, failed verification). Default none. */
  extra?: ReadonlyMap<string, readonly string[]>;
};

export function evidenceOf(view: Pick<EntryLedgerView, "confirmations" | "holdout"> | undefined): Evidence {
  if (!view) return "untested";
  if (view.confirmations.independent > 0 || view.holdout.found > 0) return "independent";
  if (view.confirmations.primed > 0 && view.holdout.withheld > 0) return "primed-only";
  return "untested";
}

export function buildStatus(input: StatusInput, options: { all?: boolean } = {}): StatusReport {
  const { config } = input;
  const byFile = new Map<string, Diagnostic[]>();
  for (const d of input.diagnostics) byFile.set(d.file, [...(byFile.get(d.file) ?? []), d]);
  const conflicts = findConflicts(input.entries, input.events);
  const rows: EntryStatusRow[] = [];
  for (const entry of input.entries) {
    if (entry.state === "archived" && !options.all && !conflicts.some((c) => c.id === entry.id)) continue;
    const fm = entry.frontmatter;
    const view = input.views.get(entry.id);
    const active = entry.state === "active";
    const unconfirmedRuns = active ? (view?.unconfirmedRuns ?? 0) : 0;
    const heldOutRuns = active ? (view?.heldOutRuns ?? 0) : 0;
    const limit = active ? limitOf({ unconfirmedRuns, heldOutRuns }, config) : { kind: "window" as const };
    const evidence = evidenceOf(view);
    const warnings: string[] = [];
    const problems = byFile.get(entry.path);
    if (problems !== undefined) {
      const { blocking } = gateVerdict(problems, true);
      if (blocking.length) warnings.push(`withheld from inject: ${describeBlocking(blocking, 2)} (run cairn check)`);
      const errors = problems.filter((d) => d.severity === "error" && !blocking.includes(d));
      if (errors.length) warnings.push(`${errors.length} check error(s): ${errors[0]!.rule} at line ${errors[0]!.line}${errors.length > 1 ? ", …" : ""} (run cairn check)`);
    }
    const status = typeof fm.status === "string" ? fm.status : "observed";
    if (status === "disputed") warnings.push("disputed");
    if (status === "superseded") warnings.push(`superseded${fm.supersededBy ? ` by ${String(fm.supersededBy)}` : ""}`);
    if (limit.kind === "past-limit") warnings.push(`past its decay limit: ${limit.reason}; the next record or decay archives it (\`cairn decay\` says why when it cannot)`);
    else if (limit.kind === "last-chance") warnings.push(`last chance: withheld from agents (holdout ${heldOutRuns}/${holdoutRuns(config)}) until one re-finds it on its own`);
    else if (active && unconfirmedRuns >= nearDecayAt(config)) {
      warnings.push(`near decay: ${unconfirmedRuns}/${config.decayAfterRuns} runs without independent confirmation`);
    }
    if (active && evidence === "primed-only" && view) {
      warnings.push(`likely false positive: reported ${view.confirmations.primed} time(s) when shown, never when withheld (${view.holdout.withheld} time(s))`);
    }
    if (active && (fm.archived !== undefined || fm.archivedReason !== undefined)) {
      warnings.push("has `archived` keys but lives in the active directory");
    }
    warnings.push(...(input.extra?.get(entry.id) ?? []));
    for (const c of conflicts) if (c.id === entry.id) warnings.push(`conflict: ${c.message}; ${c.fix}`);
    rows.push({
      id: entry.id,
      path: entry.path,
      state: entry.state,
      lastConfirmed: typeof fm.lastConfirmed === "string" ? fm.lastConfirmed : null,
      provenance: typeof fm.provenance === "string" ? fm.provenance : null,
      status,
      unconfirmedRuns,
      decayAfterRuns: config.decayAfterRuns,
      heldOutRuns,
      holdoutRuns: holdoutRuns(config),
      limit: limit.kind,
      confirmations: view?.confirmations ?? { independent: 0, primed: 0 },
      holdout: view?.holdout ?? { withheld: 0, found: 0 },
      evidence,
      lastInjected: view?.lastInjected ?? null,
      archived: typeof fm.archived === "string" ? fm.archived : null,
      archivedReason: typeof fm.archivedReason === "string" ? fm.archivedReason : null,
      warnings,
    });
  }
  // byPathOrder: localeCompare's order through one shared collator.
  const entries = rows.sort((a, b) => (a.state === b.state ? byPathOrder(a.id, b.id) : a.state === "active" ? -1 : 1));
  return { entries, conflicts, warnings: input.ledgerWarnings ?? [] };
}
