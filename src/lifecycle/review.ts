/**
 * The after-review half of the loop as the knowledge base runs it: `record`, `compound` and `decay`,
 * each planned (record.ts, compound.ts, decay.ts) and applied under the lifecycle lock, so that one
 * never acts on what another has just moved. KnowledgeBase methods are thin wrappers over these.
 */
import type { Entry, EntrySummary } from "../entry/types.js";
import type { KnowledgeView } from "../indexing/catalogue-view.js";
import { stat } from "node:fs/promises";
import path from "node:path";
import type { CairnConfig } from "../config.js";
import { CairnError, isCairnError } from "../errors.js";
import type { Ledger, LedgerState, NewEvent, RunRef } from "../ledger/index.js";
import { describeLedgerWarning } from "../ledger/read.js";
import type { SearchOptions, SearchResponse } from "../retrieval/search.js";
import type { Layout } from "../store/layout.js";
import type { CompoundCandidate } from "./compound.js";
import type { DecayCandidate } from "./decay.js";
import { archiveEntry, restoreEntry, type AppendEvents } from "./manual.js";
import { scoreCandidates } from "./match.js";
import { findingHash, provenanceWarnings } from "./provenance.js";
import type { CompoundResult, DecayResult, Finding, RecordResult, ReviewOptions } from "../types/review.js";

export type { CompoundResult, DecayResult, RecordResult, ReviewOptions } from "../types/review.js";

/** What the review operations need of the knowledge base. */
export type ReviewDeps = {
  layout: Layout;
  config: CairnConfig;
  ledger: Ledger;
  append: AppendEvents;
  today: () => string;
  origin: () => Promise<string | undefined>;
  /** The catalogue view, refreshed from the files (only changed files are parsed). */
  /** `search`: the caller will search too, so the lexical index is loaded first and one refresh saves both. */
  knowledge: (options?: { search?: boolean }) => Promise<KnowledgeView>;
  /** An entry parsed from its file now (for the few that need their body); undefined when it moved or changed id. */
  entryOf: (entry: EntrySummary) => Promise<Entry | undefined>;
  search: (query: string, options: SearchOptions) => Promise<SearchResponse>;
  /** Make the next search see the files as they are now (unless a watcher keeps the index current). */
  refreshBeforeMatching: () => void;
  /** Forget the index after writes. */
  invalidate: () => void;
  /** An append that adds anchor fingerprints to the confirmation events of these entries (anchors' content at confirmation). Default: plain `append`. */
  fingerprinting?: (entries: Entry[]) => Promise<AppendEvents>;
};

export { withLifecycleLock } from "./lifecycle-lock.js";

type Prepared = { loaded: KnowledgeView; events: LedgerState; ref: RunRef; warnings: string[] };

/** Fresh entries and ledger, the run with its origin, and the provenance warnings (refused under `strict`). */
async function prepare(deps: ReviewDeps, run: string, agents: readonly string[], options: ReviewOptions, what: string): Promise<Prepared> {
  deps.refreshBeforeMatching();
  // Matching searches: loading the lexical index now lets one refresh (and one save of the index) serve both.
  const loaded = await deps.knowledge({ search: true });
  const { state: events, warnings: ledgerWarnings } = await deps.ledger.state();
  const origin = await deps.origin();
  const ref: RunRef = origin === undefined ? { run } : { run, origin };
  // An injection of this run dated ahead of this clock was skipped: the agents may have been shown the very entries
  // they re-find, and without it they would count as independent. Refused, not guessed (fails closed).
  const ahead = ledgerWarnings.find((w) => w.aheadRun === run);
  if (ahead) {
    throw new CairnError(
      "INVALID",
      `${what} refused: ${describeLedgerWarning(ahead)}. That line says what run "${run}" showed its agents, so without it a primed finding would count as independent. Set this machine's clock right (or, for a forged line, remove it in a reviewed change) and record again. Nothing was written.`,
    );
  }
  const warnings = provenanceWarnings(events, ref, agents);
  if (options.strict && warnings.length) throw new CairnError("INVALID", `${what} refused (strict): ${warnings.join("; ")}. Nothing was written.`);
  return { loaded, events, ref, warnings };
}

export async function recordFindings(deps: ReviewDeps, run: string, findings: Finding[], options: ReviewOptions): Promise<RecordResult> {
  const { planRecord } = await import("./record.js");
  const { applyRecord } = await import("./record-apply.js");
  const dryRun = options.dryRun ?? false;
  const { loaded, events, ref, warnings } = await prepare(deps, run, findings.map((f) => f.agent), options, "recordFindings");
  const plan = await planRecord(
    {
      run: ref,
      byId: loaded.byId,
      events,
      threshold: deps.config.matchThreshold,
      score: (finding, ids) => scoreCandidates(deps.search, [finding.text, ...[finding.evidence ?? []].flat()].join("\n"), { includeArchived: true, ...(ids ? { ids } : { limit: 20 }) }),
      scoreText: (text, ids) => scoreCandidates(deps.search, text, { includeArchived: true, ids }),
    },
    findings,
  );
  warnings.push(...plan.warnings);
  if (!dryRun) {
    const reload = async (id: string) => {
      deps.refreshBeforeMatching();
      return (await deps.knowledge()).byId.get(id);
    };
    const append = deps.fingerprinting ? await deps.fingerprinting(await fullEntries(deps, plan.edits.map((e) => loaded.byId.get(e.id)))) : deps.append;
    warnings.push(...(await applyRecord({ layout: deps.layout, run: ref, today: deps.today(), append, reload }, plan)));
    deps.invalidate();
  }
  // Entries as loaded above are good enough for decay: the confirmations just written are ledger events, which reset
  // counters, and the lock keeps other record/compound/decay calls out. A dry run has written nothing, so decay is
  // told which entries its plan confirms.
  const confirmed = new Set([...plan.edits.map((e) => e.id), ...plan.restores.map((r) => r.id)]);
  const decay = await decayLoaded(deps, loaded, { dryRun, run, confirmed });
  return {
    run,
    confirmations: plan.confirmations,
    unmatched: plan.unmatched,
    alreadyRecorded: plan.alreadyRecorded,
    restored: plan.restores.map((r) => r.id),
    archived: decay.archived.map((d) => d.id),
    warnings: [...warnings, ...decay.warnings],
    dryRun,
  };
}

/** Archive every active entry of `loaded` past its decay limit; an entry moved since it was loaded is skipped with a warning. */
export async function decayLoaded(deps: ReviewDeps, loaded: Pick<KnowledgeView, "entries" | "byId">, options: { dryRun?: boolean; run?: string; confirmed?: ReadonlySet<string> }): Promise<DecayResult> {
  const { planDecay } = await import("./decay.js");
  const views = await deps.ledger.project(
    loaded.entries.map((e) => (typeof e.frontmatter.lastConfirmed === "string" ? { id: e.id, lastConfirmed: e.frontmatter.lastConfirmed } : { id: e.id })),
    { today: deps.today() },
  );
  const plan = planDecay(loaded.entries, views, deps.config, options.confirmed ? { confirmed: options.confirmed } : {});
  const warnings: string[] = [];
  const archived: DecayCandidate[] = [];
  const seen = new Set<string>();
  for (const candidate of plan) {
    const entry = loaded.byId.get(candidate.id);
    if (!entry) continue;
    // Two files with one id (an id-duplicate error in check) are one entry to the ledger: archived once, by its first file.
    if (seen.has(candidate.id)) continue;
    seen.add(candidate.id);
    if (options.dryRun) {
      archived.push(candidate);
      continue;
    }
    try {
      const result = await archiveEntry(deps.layout, deps.append, entry, candidate.reason, deps.today(), options.run);
      // Refused (the archive holds another file of that name, or the entry changed since it was loaded): not archived.
      if (result.kind === "refused") warnings.push(`"${candidate.id}" was not archived: ${result.reason}`);
      else archived.push(candidate);
    } catch (error) {
      // Moved by hand (or by a process that does not take the lifecycle lock) since it was loaded: nothing to archive.
      if (!(await stat(path.join(deps.layout.root, entry.path)).then(() => true, () => false))) {
        warnings.push(`"${candidate.id}" moved or was removed before decay could archive it`);
        continue;
      }
      // One entry cairn refuses to change (what check reports about it says why) never stops the others' archiving;
      // a failure of the disk or the file system stops decay.
      if (!isCairnError(error) || error.code === "IO") throw error;
      warnings.push(`"${candidate.id}" was not archived: ${error.message}`);
    }
  }
  if (archived.length && !options.dryRun) deps.invalidate();
  return { archived, warnings, dryRun: options.dryRun ?? false };
}

export async function compound(deps: ReviewDeps, run: string, findings: CompoundCandidate[], options: ReviewOptions): Promise<CompoundResult> {
  const { planCompound } = await import("./compound.js");
  const { applyChange } = await import("./change.js");
  const dryRun = options.dryRun ?? false;
  const { loaded, events, ref, warnings } = await prepare(deps, run, findings.flatMap((f) => f.agents), options, "compound");
  const { steps, warnings: planned } = await planCompound(
    {
      layout: deps.layout,
      config: deps.config,
      today: deps.today(),
      run: ref,
      byId: loaded.byId,
      events,
      findingOf: async (entry) => (await deps.entryOf(entry))?.finding.text,
      score: (text, ids) => scoreCandidates(deps.search, text, { includeArchived: true, ...(ids ? { ids } : { limit: 10 }) }),
    },
    findings,
  );
  const result: CompoundResult = { run, created: [], restored: [], skipped: [], warnings: [...warnings, ...planned], dryRun };
  for (const step of steps) {
    if (step.kind === "skip") {
      result.skipped.push({ text: step.finding.text, reason: step.reason });
      continue;
    }
    const id = step.kind === "create" ? step.plan.id : step.entry.id;
    if (dryRun) {
      (step.kind === "restore" ? result.restored : result.created).push(id);
      continue;
    }
    // The file change and its `compounded` event are one logged change: a kill between them cannot lose the event.
    const compounded: NewEvent = { type: "compounded", entry: id, run, ...(ref.origin ? { origin: ref.origin } : {}), agents: step.agents, findingHash: findingHash(step.finding.text) };
    if (step.kind === "create") {
      const outcome = await applyChange(deps.layout, { key: id, steps: [{ kind: "create", path: step.plan.rel, text: step.plan.text }, { kind: "events", events: [compounded] }] }, deps.append);
      if (outcome.kind === "stale") throw new CairnError("CONFLICT", `${step.plan.rel} was created by another process meanwhile; it was kept`);
      result.created.push(id);
    }
    if (step.kind === "restore") {
      const restored = await restoreEntry(deps.layout, deps.append, step.entry, `recurred in run ${run}: flagged independently by ${step.agents.join(", ")}`, deps.today(), run, undefined, [compounded]);
      if (restored.kind === "refused") {
        // No `compounded` event: a retry, once the obstacle is gone, plans the restore again instead of skipping it.
        result.skipped.push({ text: step.finding.text, reason: `matches archived entry "${id}", which could not be restored: ${restored.reason}` });
        result.warnings.push(`"${id}" was not restored: ${restored.reason}. Compound it again once that is resolved`);
        continue;
      }
      // Restored meanwhile by another process: its events are its own; this run's compounding is still said.
      if (restored.kind !== "done" || !restored.changed) await deps.append([compounded]);
      result.restored.push(id);
    }
    // The file of an interrupted earlier call (by a cairn before this change was logged): only its event is owed.
    if (step.kind === "resume") {
      await deps.append([compounded]);
      result.created.push(id);
    }
  }
  if (!dryRun && (result.created.length || result.restored.length)) deps.invalidate();
  return result;
}

/** The entries (parsed from their files) of some catalogue records: the few whose body a change needs. */
async function fullEntries(deps: ReviewDeps, records: ReadonlyArray<EntrySummary | undefined>): Promise<Entry[]> {
  const out: Entry[] = [];
  for (const record of records) {
    const entry = record && (await deps.entryOf(record));
    if (entry) out.push(entry);
  }
  return out;
}
