/** `status` and `report`: what they are computed from (the catalogue run through the rules of `check`, the ledger and its projection). */
import path from "node:path";
import type { Diagnostic } from "../entry/diagnostic.js";
import type { Entry } from "../entry/types.js";
import type { KnowledgeView } from "../indexing/catalogue-view.js";
import { describeLedgerWarning, projectState } from "../ledger/index.js";
import { buildStatus, type StatusInput } from "../lifecycle/status.js";
import type { ReportModel, ReportOptions } from "../report/types.js";
import { requireKnowledgeDir } from "../store/require.js";
import type { StatusOptions, StatusReport } from "../types/status.js";
import type { KbContext } from "./context.js";

/** Every active (and with `all`, archived) entry with decay counter, confirmations and warnings. */
export async function knowledgeStatus(ctx: Pick<KbContext, "layout" | "config" | "ledger" | "lint" | "today" | "knowledge">, options: StatusOptions = {}): Promise<StatusReport> {
  return buildStatus(await statusInput(ctx), options);
}

/** What `status` is computed from: every entry run through the same rules as `check` (the one engine), the ledger and its projection. */
async function statusInput(ctx: Pick<KbContext, "layout" | "config" | "ledger" | "lint" | "today" | "knowledge">): Promise<StatusInput & { entries: KnowledgeView["entries"] }> {
  // The catalogue and the lint cache: the same rules and results as `check`, re-computed only for what changed.
  const view = await ctx.knowledge();
  const { state, warnings } = await ctx.ledger.state();
  const { lintCatalogue } = await import("../check/catalogue-lint.js");
  const { diagnostics, cache } = await lintCatalogue({ layout: ctx.layout, config: ctx.config, view, events: state, today: ctx.today() }, ctx.lint.cache);
  ctx.lint.cache = cache;
  const views = projectState(state, confirmationInfo(view.entries), { today: ctx.today() });
  const { liveWarnings } = await import("../anchors/live.js");
  return {
    entries: view.entries,
    diagnostics,
    views,
    events: state,
    config: ctx.config,
    extra: liveWarnings(view.entries, diagnostics, state),
    ledgerWarnings: [...unreadableEntries(view, diagnostics), ...warnings.map(describeLedgerWarning)],
  };
}

/**
 * The knowledge report's data (`cairn report`): every entry, active and archived, with its decay, confirmations
 * over runs, holdout evidence, verification and anchor drift; per-agent series; the lifecycle timeline.
 * `renderReportHtml` turns it into the static page.
 */
export async function knowledgeReport(ctx: Pick<KbContext, "layout" | "config" | "ledger" | "lint" | "now" | "today" | "knowledge" | "load">, options: ReportOptions = {}): Promise<ReportModel> {
  await requireKnowledgeDir(ctx.layout);
  const input = await statusInput(ctx);
  const { buildReportModel } = await import("../report/model.js");
  const project = path.basename(path.resolve(ctx.layout.root));
  // The report shows each entry's finding and Verify section, and every event of the timeline: the one reader
  // here that needs every body and every ledger line.
  const loaded = await ctx.load();
  const { events } = await ctx.ledger.read();
  return buildReportModel(
    { status: buildStatus(input, { all: true }), entries: loaded.entries, diagnostics: input.diagnostics, events, config: ctx.config, project, now: ctx.now() },
    options,
  );
}

function stringOr(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** Files that hold no readable entry (status has no row for them): one warning each, naming the first problem. */
function unreadableEntries(loaded: { entries: ReadonlyArray<{ path: string }> }, diagnostics: Diagnostic[]): string[] {
  const parsed = new Set(loaded.entries.map((e) => e.path));
  const first = new Map<string, Diagnostic>();
  for (const d of diagnostics) if (d.severity === "error" && !parsed.has(d.file) && !first.has(d.file)) first.set(d.file, d);
  return [...first.values()].map((d) => `${d.file} is not a readable entry: ${d.rule} at line ${d.line} (run cairn check ${d.file}); it is never injected`);
}

/** What the ledger projection needs of each entry. */
export function confirmationInfo(entries: ReadonlyArray<Pick<Entry, "id" | "frontmatter">>): Array<{ id: string; lastConfirmed?: string }> {
  return entries.map((e) => {
    const lastConfirmed = stringOr(e.frontmatter.lastConfirmed);
    return lastConfirmed === undefined ? { id: e.id } : { id: e.id, lastConfirmed };
  });
}
