/** The open knowledge base: one typed object the CLI and the MCP server call into. */
import { AsyncLocalStorage } from "node:async_hooks";
import { applyConfigOverride, loadConfig, vectorWeightOf } from "./config.js";
import type { GateVerdict } from "./check/gate.js";
import { todayUtc } from "./entry/file-facts.js";
import { frontmatterJsonSchema } from "./entry/schema.js";
import { openLedger, snapshotFileIn, type Ledger, type NewEvent } from "./ledger/index.js";
import { stampAfter } from "./ledger/stamp.js";
// Changes to entry files (create, manual, change) are imported where they run: they load the YAML parser and the
// surgical editor, which read-only commands (status, search, index, inject) never need.
import type { ReportModel, ReportOptions } from "./report/types.js";
import { assertPlainCacheDir } from "./store/cache-dir.js";
import { initKnowledge } from "./store/init.js";
import { findRoot, gitTop, layoutFor } from "./store/layout.js";
import { loadKnowledge, type LoadedKnowledge } from "./store/load.js";
import { requireKnowledgeDir, requireRootNotFile } from "./store/require.js";
import type { SearchIndex } from "./indexing/search-index.js";
import { IndexSession } from "./indexing/session.js";
import type { Embedder } from "./indexing/embedder.js";
import type { Entry, EntryStatus, EntrySummary } from "./entry/types.js";
import type { KnowledgeView } from "./indexing/catalogue-view.js";
// The bodies of the larger operations live in src/kb/, one module per idea; each takes what it uses of this object
// (a KbContext), and keeps the lazy imports it had here.
import { fixAnchors } from "./kb/anchors.js";
import { checkKnowledge } from "./kb/check.js";
import type { KbContext, LintMemo } from "./kb/context.js";
import { entryOf } from "./kb/entry-file.js";
import { buildIndex, watchKnowledge } from "./kb/indexing.js";
import { injectKnowledge } from "./kb/inject.js";
import { newEntry } from "./kb/new-entry.js";
import { gateVerdicts } from "./kb/lint-files.js";
import * as manual from "./kb/manual.js";
import * as review from "./kb/review.js";
import { entryHistory, showEntry } from "./kb/show.js";
import { knowledgeReport, knowledgeStatus } from "./kb/status.js";
import { verifyEntries } from "./kb/verify.js";
// Public signatures use only the plain types of src/types/ (and the leaf modules they name), so the published
// declarations stay small and free of zod and other dependencies (test/types/public-declarations.test.ts).
import type { CheckOptions, CheckReport, FixAnchorsOptions, FixReport } from "./types/check.js";
import type { CairnConfig } from "./types/config.js";
import type { InitResult, ManualResult, NewEntryInput, NewEntryResult, RepairResult } from "./types/entries.js";
import type { IndexOptions, IndexProgress, IndexSummary, WatchHandle, WatchOptions } from "./types/indexing.js";
import type { InjectInput, InjectResult } from "./types/inject.js";
import type { Layout, OpenOptions } from "./types/open.js";
import type { CompoundFinding, CompoundResult, DecayOptions, DecayResult, Finding, RecordResult, ReviewOptions } from "./types/review.js";
import type { SearchOptions, SearchResponse } from "./types/search.js";
import type { History, NotFound, ShowResult, StatusOptions, StatusReport } from "./types/status.js";
import type { VerifyOptions, VerifyReport } from "./types/verify.js";
import type { KnowledgeDiff } from "./diff/types.js";

/** Who acts, as `actingAs` was given it: a name, a name being looked up, or a lookup to start when a change is recorded. */
type ActorSource = string | Promise<string> | (() => Promise<string>);
const actorScope = new AsyncLocalStorage<ActorSource>();

export type { CompoundResult, DecayResult, RecordResult, ReviewOptions } from "./types/review.js";
export type { IndexSummary, NewEntryResult, OpenOptions };

export class KnowledgeBase {
  /** Where this knowledge base's files are (absolute paths). */
  readonly layout: Layout;
  /** The resolved configuration: cairn.config.json, the `config` option, and every default. */
  readonly config: CairnConfig;
  /** @internal The open ledger (the CLI and tests read it; the public API reports through its operations). */
  readonly ledger: Ledger;
  readonly #now: () => Date;
  /** The lint cache as this process last read or wrote it, and the lookup the inject gate reads until then (see LintMemo). */
  readonly #lint: LintMemo = { cache: undefined, lookup: undefined };
  /** Temp files of killed writers were swept by this process already. */
  #swept = false;
  /** The one open index of this knowledge base, shared by searches, index(), lifecycle reads and the watcher. */
  readonly #session: IndexSession;

  readonly #embedder: Embedder | null | undefined;

  /** What the operations in src/kb/ receive of this knowledge base. */
  readonly #ctx: KbContext;

  /** Receives warnings that belong to no single result (see OpenOptions.onWarning). */
  onWarning: (message: string) => void = () => {};

  /** Told how a long refresh of the index goes, whichever operation started it (see OpenOptions.onProgress). */
  onProgress: IndexProgress | undefined;

  #actor: Promise<string> | undefined;
  readonly #origin: string | undefined;

  /** Prefer `openKnowledgeBase()`, which reads the configuration and finds the root. */
  constructor(layout: Layout, config: CairnConfig, now: () => Date, embedder?: Embedder | null, refreshIntervalMs = 15_000, who: Pick<OpenOptions, "actor" | "origin"> = {}) {
    this.layout = layout;
    this.config = config;
    // The folded ledger is kept in .cairn/: a command folds only the events appended since the last one.
    this.ledger = openLedger(layout.ledger, { root: layout.root, relativeTo: layout.root, snapshot: snapshotFileIn(layout.cache) });
    this.#now = now;
    this.#embedder = embedder;
    this.#session = new IndexSession(layout, config, embedder, refreshIntervalMs, (done, total, phase) => this.onProgress?.(done, total, phase));
    if (who.actor !== undefined) this.#actor = Promise.resolve(who.actor);
    this.#origin = who.origin;
    this.#ctx = {
      layout, config, ledger: this.ledger, append: this.append, session: this.#session, embedder: this.#embedder, lint: this.#lint,
      now: () => this.#now(),
      today: () => this.today(),
      warn: (message) => this.onWarning(message),
      progress: (own) => this.#progress(own),
      origin: () => this.origin(),
      repair: () => this.repair(),
      invalidate: () => this.invalidate(),
      refreshBeforeMatching: () => this.#refreshBeforeMatching(),
      load: () => this.load(),
      knowledge: (options) => this.knowledge(options),
      entryOf: (record) => this.entryOf(record),
      searchIndex: (options) => this.searchIndex(options),
      search: (query, options) => this.search(query, options),
      agentScopes: () => this.agentScopes(),
    };
  }

  /** @internal Append ledger events stamped with this knowledge base's clock, actor and origin (`append.now`: that clock). */
  readonly append = Object.assign(
    async (events: NewEvent[]) => {
      if (!events.length) return [];
      await requireKnowledgeDir(this.layout); // never (re)create knowledge/.ledger/ where knowledge/ is gone
      const time = await this.#stampTime();
      return this.ledger.append((await this.#signed(events)).map((e) => ({ time, ...e }) as NewEvent));
    },
    { now: () => this.#now(), stampTime: () => this.#stampTime(), prepare: (events: NewEvent[]) => this.#signed(events) },
  );

  /** `events` with this knowledge base's actor and origin, where they name none. */
  async #signed(events: NewEvent[]): Promise<NewEvent[]> {
    const [actor, origin] = await Promise.all([this.actor(), this.origin()]);
    return events.map((e) => ({ actor, ...(origin === undefined ? {} : { origin }), ...e }) as NewEvent);
  }

  /** The time new events are stamped with: the clock, or just after the ledger's latest event when the clock is behind it (ledger/stamp.ts). */
  async #stampTime(): Promise<Date> {
    return stampAfter(this.#now(), (await this.ledger.state().catch(() => undefined))?.state.last);
  }

  /** Who acts: the name recorded on every ledger event (see OpenOptions.actor); inside `actingAs` that name. */
  actor(): Promise<string> {
    const scoped = actorScope.getStore();
    if (scoped !== undefined) return typeof scoped === "function" ? scoped() : Promise.resolve(scoped);
    this.#actor ??= import("./lifecycle/actor.js").then(({ detectActor }) => detectActor(this.layout.root));
    return this.#actor;
  }

  /** Name the actor of every later change (the MCP server sets its client's name). */
  useActor(name: string): void {
    this.#actor = Promise.resolve(name);
  }

  /**
   * Run `work` with `name` as the actor of every change it makes, without touching other callers:
   * an HTTP MCP server serves several clients on one knowledge base, each named in its own events.
   * A promised name (a `git config` lookup still running) is awaited only when a change is recorded; a function is
   * called then, and only then (it is asked again for every change: make it remember its answer).
   */
  actingAs<T>(name: ActorSource, work: () => Promise<T>): Promise<T> {
    return actorScope.run(name, work);
  }

  /** Where runs happen now: the `origin` option, else `<branch>@<clone id>` from git (read each time: the branch may change). */
  async origin(): Promise<string | undefined> {
    if (this.#origin !== undefined) return this.#origin;
    const { detectOrigin } = await import("./lifecycle/origin.js");
    return detectOrigin(this.layout.root);
  }

  /** The current time by this knowledge base's clock. */
  now(): Date {
    return this.#now();
  }

  /** Today's date (UTC) by this knowledge base's clock. */
  today(): string {
    return todayUtc(this.#now());
  }

  /** Create knowledge/, archive/, .ledger/, and the .gitattributes / .gitignore lines. Idempotent. */
  init(): Promise<InitResult> {
    return initKnowledge(this.layout);
  }

  /** @internal Every entry file parsed, with per-file diagnostics and duplicate ids. */
  load(): Promise<LoadedKnowledge> {
    return loadKnowledge(this.layout, { today: this.today() });
  }

  /** Run every check rule (see README "Checks"); `duplicates` adds the near-duplicate rule, which uses the search index. */
  async check(options: CheckOptions = {}): Promise<CheckReport> {
    return checkKnowledge(this.#ctx, options);
  }

  /** Write a new, valid entry; refuses without evidence or verify steps, on a taken id or file name, or on sanitization errors. */
  async newEntry(input: NewEntryInput): Promise<NewEntryResult> {
    return newEntry(this.#ctx, input);
  }

  /** Every active (and with `all`, archived) entry with decay counter, confirmations and warnings. */
  async status(options: StatusOptions = {}): Promise<StatusReport> {
    return knowledgeStatus(this.#ctx, options);
  }

  /**
   * The knowledge report's data (`cairn report`): every entry, active and archived, with its decay, confirmations
   * over runs, holdout evidence, verification and anchor drift; per-agent series; the lifecycle timeline.
   * `renderReportHtml` turns it into the static page.
   */
  async report(options: ReportOptions = {}): Promise<ReportModel> {
    return knowledgeReport(this.#ctx, options);
  }

  /** @internal The inject gate's verdict for each entry file (`search --explain`): would it be injected, and if not, which rules withhold it. */
  async gate(files: ReadonlyArray<{ path: string }>): Promise<Map<string, GateVerdict>> {
    return gateVerdicts(this.#ctx, files);
  }

  /** Mark an entry independently confirmed today (a one/two-line diff). */
  confirm(id: string): Promise<ManualResult> {
    return manual.confirm(this.#ctx, id);
  }

  /** Delete an entry's file (git keeps its history) and record a `retracted` event. */
  retract(id: string): Promise<ManualResult> {
    return manual.retract(this.#ctx, id);
  }

  /** Move an archived entry back to knowledge/ and confirm it today. */
  restore(id: string, reason = "restored by hand"): Promise<ManualResult> {
    return manual.restore(this.#ctx, id, reason);
  }

  /** Move an active entry to knowledge/archive/ with `archived` and `archivedReason`. */
  archive(id: string, reason: string): Promise<ManualResult> {
    return manual.archive(this.#ctx, id, reason);
  }

  /**
   * @internal The catalogue view: every entry's identity, frontmatter, anchor places and parse problems, from the index's
   * catalogue (refreshed from the files when stale: only changed files are parsed). What `status`, `confirm`,
   * `record`, decay, `compound`, `show` and `history` read instead of parsing every entry.
   */
  async knowledge(options: { search?: boolean } = {}): Promise<KnowledgeView> {
    // Lifecycle decisions must see every file as it is now (a human may have just edited one): the catalogue is
    // re-checked (one stat per file, no parsing of unchanged ones) unless a watcher keeps it current.
    this.#refreshBeforeMatching();
    const { index } = await this.searchIndex({ ...options, records: true });
    const { knowledgeView } = await import("./indexing/catalogue-view.js");
    return knowledgeView(index.catalogue, this.today());
  }

  /** @internal The entry of a catalogue record, parsed from its file now; undefined when the file is gone or no longer holds that id. */
  async entryOf(record: EntrySummary): Promise<Entry | undefined> {
    return entryOf(this.#ctx, record);
  }

  /** Build or update the search index in .cairn/ (incremental; `rebuild` starts from scratch). */
  async index(options: IndexOptions = {}): Promise<IndexSummary> {
    return buildIndex(this.#ctx, options);
  }

  /** The progress callback of a refresh: the operation's own, else the knowledge base's. */
  #progress(own?: IndexProgress): { onProgress?: IndexProgress } {
    const onProgress = own ?? this.onProgress;
    return onProgress ? { onProgress } : {};
  }

  /** Hybrid search (see SearchOptions); the index is refreshed from the files first when stale. */
  async search(query: string, options: SearchOptions = {}): Promise<SearchResponse> {
    const { index, warnings } = await this.#session.fresh({ search: true });
    const { hybridSearch } = await import("./retrieval/search.js");
    const response = await hybridSearch(index, query, options, this.config.agents, vectorWeightOf(this.config));
    return { ...response, warnings: [...new Set([...warnings, ...response.warnings])] };
  }

  /** @internal The open search index, refreshed from the files at most every refreshIntervalMs (a running watcher refreshes it on change instead); `search`: load the lexical index first (the caller will search). */
  searchIndex(options: { search?: boolean; records?: boolean } = {}): Promise<{ index: SearchIndex; warnings: string[] }> {
    return this.#session.fresh(options);
  }

  /** Watch the knowledge dir and keep the index current until `close()` (holds the index writer lock). */
  async watch(options: WatchOptions = {}): Promise<WatchHandle> {
    return watchKnowledge(this.#ctx, options);
  }

  /**
   * Finish every change a killed (or failed) process left pending in knowledge/.pending/ — archive,
   * restore, supersede, retract, confirm — so no entry stays in both knowledge/ and the archive and
   * no event is missing. Every mutating operation calls this first; reports go to `onWarning`.
   */
  async repair(): Promise<RepairResult> {
    // Every change names its actor: start finding it (a `git config` process) while the change is planned.
    void this.actor().catch(() => undefined);
    // Temp files of killed writers are swept once per process (it lists the knowledge dir); pending changes every time.
    const { repairPendingChanges } = await import("./lifecycle/change.js");
    const report = await repairPendingChanges(this.layout, { leftovers: !this.#swept });
    this.#swept = true;
    for (const warning of report.warnings) this.onWarning(warning);
    if (report.completed.length) this.invalidate();
    return { completed: report.completed };
  }

  /** Forget the cached index so the next search re-reads the files (used by the watcher and after writes). */
  invalidate(): void {
    this.#session.invalidate();
  }

  /** Matching for record/compound must see every file as it is now (another process may have just written one), unless a watcher keeps the index current. */
  #refreshBeforeMatching(): void {
    if (!this.#session.watched) this.invalidate();
  }

  /**
   * Knowledge for one agent in one run: at most maxPerAgent entries across all calls for that agent and run,
   * above the relevance floor; records an `injected` event unless dryRun. Never throws for search failures.
   */
  async inject(input: InjectInput): Promise<InjectResult> {
    return injectKnowledge(this.#ctx, input);
  }

  /** @internal Every distinct `agents:` scope among active entries (read from the search index). */
  async agentScopes(): Promise<string[]> {
    const { index } = await this.searchIndex({ records: false });
    return index.agentScopes();
  }

  /**
   * Record a run's findings: independent re-discoveries refresh entries (or restore archived ones), primed ones only
   * add events; a finding already recorded for (run, agent) is not counted again; then decay runs.
   */
  async recordFindings(run: string, findings: Finding[], options: ReviewOptions = {}): Promise<RecordResult> {
    return review.recordFindings(this.#ctx, run, findings, options);
  }

  /** Archive every active entry past its decay limit (decayAfterRuns injected runs, or its holdout runs spent, since its last confirmation). Never deletes. */
  async decay(options: DecayOptions = {}): Promise<DecayResult> {
    return review.decay(this.#ctx, options);
  }

  /** Turn converging findings (2+ independent agents, durable, evidence + verify, sanitized, not a duplicate) into entries; restore recurring archived ones. */
  async compound(run: string, findings: CompoundFinding[], options: ReviewOptions = {}): Promise<CompoundResult> {
    return review.compound(this.#ctx, run, findings, options);
  }

  /** Repair drifted anchors surgically (moved line ranges, renamed paths); `dryRun` only previews. */
  async fixAnchors(options: FixAnchorsOptions = {}): Promise<FixReport> {
    return fixAnchors(this.#ctx, options);
  }

  /** Run the mechanical verify steps of every (or the given) active entry in-process and record changed results as `verified` events. */
  async verify(options: VerifyOptions = {}): Promise<VerifyReport | NotFound> {
    return verifyEntries(this.#ctx, options);
  }

  /** Change an entry's claim status; transitions are validated (superseded is terminal, disputed → verified | superseded). */
  async setStatus(id: string, status: EntryStatus): Promise<ManualResult> {
    return manual.setStatus(this.#ctx, id, status);
  }

  /** Link OLD and NEW (supersededBy / supersedes) and archive OLD. */
  async supersede(oldId: string, newId: string): Promise<ManualResult> {
    return manual.supersede(this.#ctx, oldId, newId);
  }

  /** One entry by id: its text, parsed fields, status row and problems; "not found" carries close ids. */
  async show(id: string): Promise<ShowResult> {
    return showEntry(this.#ctx, id);
  }

  /** An entry's ledger events and git log, oldest first. */
  async history(id: string): Promise<History | NotFound> {
    return entryHistory(this.#ctx, id);
  }

  /** Knowledge changes between git revisions `base` and `head` (default: the working tree), for PR review. */
  async diff(base: string, head?: string): Promise<KnowledgeDiff> {
    const { diffKnowledge } = await import("./diff/index.js");
    return diffKnowledge(this.layout, this.config, base, head, { today: this.today() });
  }

  /** JSON Schema of the entry frontmatter, for editors. */
  schema(): Record<string, unknown> {
    return frontmatterJsonSchema();
  }
}

/** Open the knowledge base at `root` (see OpenOptions). Reads cairn.config.json; nothing heavy is loaded. */
export async function openKnowledgeBase(options: OpenOptions = {}): Promise<KnowledgeBase> {
  const root = options.root ?? findRoot(process.cwd()) ?? gitTop(process.cwd()) ?? process.cwd();
  await requireRootNotFile(root);
  const fileConfig = await loadConfig(root);
  const config: CairnConfig = applyConfigOverride(fileConfig, options.config);
  const who = { ...(options.actor !== undefined ? { actor: options.actor } : {}), ...(options.origin !== undefined ? { origin: options.origin } : {}) };
  const layout = layoutFor(root, config);
  await assertPlainCacheDir(layout);
  const kb = new KnowledgeBase(layout, config, options.now ?? (() => new Date()), options.embedder, options.refreshIntervalMs, who);
  if (options.onWarning) kb.onWarning = options.onWarning;
  if (options.onProgress) kb.onProgress = options.onProgress;
  return kb;
}
