/** `cairn status`: every entry with its decay counter, confirmations and warnings (pure over loaded data). */
import { describeBlocking, gateVerdict } from "../check/gate.js";
import type { CairnConfig } from "../config.js";
import type { Diagnostic } from "../entry/diagnostic.js";
import type { Entry, EntryState } from "../entry/types.js";
import type { EntryLedgerView } from "../ledger/index.js";

export type EntryStatusRow = {
  id: string;
  path: string;
  state: EntryState;
  lastConfirmed: string | null;
  provenance: string | null;
  status: string;
  /** Distinct runs that injected the entry since its last confirmation. */
  unconfirmedRuns: number;
  decayAfterRuns: number;
  confirmations: { independent: number; primed: number };
  lastInjected: string | null;
  archived: string | null;
  archivedReason: string | null;
  warnings: string[];
};

export type StatusReport = { entries: EntryStatusRow[]; warnings: string[] };

export function buildStatus(
  entries: Entry[],
  diagnostics: Diagnostic[],
  views: Map<string, EntryLedgerView>,
  config: Pick<CairnConfig, "decayAfterRuns" | "nearDecayRatio">,
  options: { all?: boolean } = {},
  /** More warnings per entry id (anchor drift, failed verification). Default none. */
  extra: ReadonlyMap<string, readonly string[]> = new Map(),
): EntryStatusRow[] {
  const byFile = new Map<string, Diagnostic[]>();
  for (const d of diagnostics) byFile.set(d.file, [...(byFile.get(d.file) ?? []), d]);
  const rows: EntryStatusRow[] = [];
  for (const entry of entries) {
    if (entry.state === "archived" && !options.all) continue;
    const fm = entry.frontmatter;
    const view = views.get(entry.id);
    const unconfirmedRuns = entry.state === "active" ? (view?.unconfirmedRuns ?? 0) : 0;
    const warnings: string[] = [];
    const problems = byFile.get(entry.path) ?? [];
    const { blocking } = gateVerdict(problems, true);
    if (blocking.length) warnings.push(`withheld from inject: ${describeBlocking(blocking, 2)} (run cairn check)`);
    const errors = problems.filter((d) => d.severity === "error" && !blocking.includes(d));
    if (errors.length) warnings.push(`${errors.length} check error(s): ${errors[0]!.rule} at line ${errors[0]!.line}${errors.length > 1 ? ", …" : ""} (run cairn check)`);
    const status = typeof fm.status === "string" ? fm.status : "observed";
    if (status === "disputed") warnings.push("disputed");
    if (status === "superseded") warnings.push(`superseded${fm.supersededBy ? ` by ${String(fm.supersededBy)}` : ""}`);
    if (entry.state === "active" && unconfirmedRuns >= Math.ceil(config.decayAfterRuns * config.nearDecayRatio)) {
      warnings.push(`near decay: ${unconfirmedRuns}/${config.decayAfterRuns} runs without independent confirmation`);
    }
    if (entry.state === "active" && (fm.archived !== undefined || fm.archivedReason !== undefined)) {
      warnings.push("has `archived` keys but lives in the active directory");
    }
    warnings.push(...(extra.get(entry.id) ?? []));
    rows.push({
      id: entry.id,
      path: entry.path,
      state: entry.state,
      lastConfirmed: typeof fm.lastConfirmed === "string" ? fm.lastConfirmed : null,
      provenance: typeof fm.provenance === "string" ? fm.provenance : null,
      status,
      unconfirmedRuns,
      decayAfterRuns: config.decayAfterRuns,
      confirmations: view?.confirmations ?? { independent: 0, primed: 0 },
      lastInjected: view?.lastInjected ?? null,
      archived: typeof fm.archived === "string" ? fm.archived : null,
      archivedReason: typeof fm.archivedReason === "string" ? fm.archivedReason : null,
      warnings,
    });
  }
  return rows.sort((a, b) => (a.state === b.state ? a.id.localeCompare(b.id) : a.state === "active" ? -1 : 1));
}
