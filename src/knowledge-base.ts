/** The open knowledge base: one typed object the CLI and the MCP server call into. */
import { AsyncLocalStorage } from "node:async_hooks";
import { existsSync } from "node:fs";
import path from "node:path";
import { applyConfigOverride, loadConfig, vectorWeightOf } from "./config.js";
import type { GateVerdict } from "./check/gate.js";
import type { Diagnostic } from "./entry/diagnostic.js";
import { entryFileFor, type ReadResult } from "./store/files.js";
import { isEntryId } from "./entry/id.js";
import { todayUtc } from "./entry/file-facts.js";
import { frontmatterJsonSchema } from "./entry/schema.js";
import { CairnError } from "./errors.js";
import { openLedger, projectState, snapshotFileIn, type Ledger, type NewEvent } from "./ledger/index.js";
// Changes to entry files (create, manual, change) are imported where they run: they load the YAML parser and the
// surgical editor, which read-only commands (status, search, index, inject) never need.
import { lookup, unreadableEntry } from "./lifecycle/lookup.js";
import { buildStatus, type StatusInput } from "./lifecycle/status.js";
import type { ReportModel, ReportOptions } from "./report/types.js";
import { initKnowledge } from "./store/init.js";
import { findRoot, gitTop, layoutFor } from "./store/layout.js";
import { knowledgeDirProblem, requireKnowledgeDir } from "./store/require.js";
import { checkUserPaths } from "./store/user-paths.js";
import { loadKnowledge, type LoadedKnowledge } from "./store/load.js";
import type { SearchIndex } from "./indexing/search-index.js";
import { IndexSession } from "./indexing/session.js";
import type { Embedder } from "./indexing/embedder.js";
import type { ReviewDeps } from "./lifecycle/review.js";
import type { Entry, EntryStatus, EntrySummary } from "./entry/types.js";
import type { KnowledgeView } from "./indexing/catalogue-view.js";
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

/** The actor of the changes made inside `KnowledgeBase.actingAs`, per async call chain. */
const actorScope = new AsyncLocalStorage<string>();

/** `inject` waits at most this long for another injection's lock, then goes on unserialised with a warning. */
const INJECT_LOCK_WAIT_MS = 1_000;

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
  /** The lint cache as this process last read or wrote it (`.cairn/lint.json`). */
  #lintCache: import("./check/lint-cache.js").LintCache | undefined;
  /** The lint cache file read once for the inject gate's lookups, until this process holds the whole cache. */
  #lintLookup: ReturnType<typeof import("./check/lint-cache.js").readLintLookup> | undefined;
  /** Temp files of killed writers were swept by this process already. */
  #swept = false;
  /** The one open index of this knowledge base, shared by searches, index(), lifecycle reads and the watcher. */
  readonly #session: IndexSession;

  readonly #embedder: Embedder | null | undefined;


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
    this.ledger = openLedger(layout.ledger, { root: layout.root, snapshot: snapshotFileIn(layout.cache) });
    this.#now = now;
    this.#embedder = embedder;
    this.#session = new IndexSession(layout, config, embedder, refreshIntervalMs, (done, total, phase) => this.onProgress?.(done, total, phase));
    if (who.actor !== undefined) this.#actor = Promise.resolve(who.actor);
    this.#origin = who.origin;
  }

  /**
   * @internal Append ledger events stamped with this knowledge base's clock, actor and origin (`append.now` is that
   * clock, for changes that stamp their own events).
   */
  readonly append = Object.assign(
    async (events: NewEvent[]) => {
      if (!events.length) return [];
      const actor = await this.actor();
      const origin = optionalOrigin(await this.origin());
      return this.ledger.append(events.map((e) => ({ time: this.#now(), actor, ...origin, ...e }) as NewEvent));
    },
    { now: () => this.#now() },
  );

  /** Who acts: the name recorded on every ledger event (see OpenOptions.actor); inside `actingAs` that name. */
  actor(): Promise<string> {
    const scoped = actorScope.getStore();
    if (scoped !== undefined) return Promise.resolve(scoped);
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
   */
  actingAs<T>(name: string, work: () => Promise<T>): Promise<T> {
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
    const { duplicates, ...rest } = options;
    await checkUserPaths(this.layout, rest.paths ?? []);
    const paths = (rest.paths ?? []).map((p) => path.resolve(this.layout.root, p));
    // Files outside the knowledge dir, and the near-duplicate rule (whole entries, the model), take the full pass.
    if (duplicates || paths.some((p) => p !== this.layout.knowledge && !p.startsWith(this.layout.knowledge + path.sep))) {
      const { runCheck } = await import("./check/run.js");
      return runCheck(this.layout, this.config, { today: this.today(), ...rest, ...(duplicates ? { nearDuplicates: (loaded: LoadedKnowledge) => this.#nearDuplicates(loaded) } : {}) });
    }
    // Every entry file is read and hashed (a size and mtime can hide an edit); files whose bytes are unchanged keep
    // their parse and rule results, so the result is exactly a full pass's.
    const { index, run } = await this.#session.refreshNow({ verifyContent: true, embedLimit: 0, ...this.#progress() });
    for (const warning of [...index.takeOpenWarnings(), ...run.warnings]) this.onWarning(warning);
    const { knowledgeView } = await import("./indexing/catalogue-view.js");
    const view = knowledgeView(index.catalogue, this.today());
    const { lintCatalogue } = await import("./check/catalogue-lint.js");
    const { state } = await this.ledger.state();
    const lint = await lintCatalogue({ layout: this.layout, config: this.config, view, events: state, today: this.today(), anchors: rest.anchors !== false, strictAnchors: true }, this.#lintCache);
    this.#lintCache = lint.cache;
    const inPaths = (file: string) => !paths.length || paths.some((p) => { const abs = path.join(this.layout.root, file); return abs === p || abs.startsWith(p + path.sep); });
    const diagnostics = lint.diagnostics.filter((d) => inPaths(d.file));
    const files = [...view.entries.map((e) => e.path), ...index.catalogue.broken.map((b) => b.path), ...index.catalogue.records.filter((r) => r.unparsed).map((r) => r.path)].filter(inPaths).length;
    return { diagnostics, errors: diagnostics.filter((d) => d.severity === "error").length, warnings: diagnostics.filter((d) => d.severity === "warning").length, files };
  }

  async #nearDuplicates(loaded: LoadedKnowledge) {
    const { findNearDuplicates } = await import("./check/duplicates.js");
    const { index } = await this.#session.fresh({ search: true });
    // Opt-in and meant for CI: the model compares the lexically pre-selected pairs only (their vectors are cached).
    const embedder = index.embedder ? undefined : await this.#matchingEmbedder();
    const { cachedEmbed } = await import("./indexing/cached-embed.js");
    const embed = embedder ? await cachedEmbed(this.layout.cache, embedder) : undefined;
    try {
      return await findNearDuplicates(index, loaded, this.config.duplicateThreshold, embed);
    } catch (error) {
      if (!embed) throw error;
      this.onWarning(`embedding model unavailable for near-duplicates (${(error as Error).message}); compared by word overlap`);
      return findNearDuplicates(index, loaded, this.config.duplicateThreshold);
    }
  }

  /** The configured embedder (or the `embedder` option), usable or null, for comparing a few texts. */
  async #matchingEmbedder(): Promise<Embedder | null> {
    if (this.#embedder !== undefined) return this.#embedder;
    const { createEmbedder, usableEmbedder } = await import("./indexing/embedders/index.js");
    const { embedder, warning } = await usableEmbedder(createEmbedder(this.config.embedder, { root: this.layout.root }));
    if (warning) this.onWarning(warning);
    return embedder;
  }

  /** Write a new, valid entry; refuses without evidence or verify steps, on a clash, or on sanitization errors. */
  async newEntry(input: NewEntryInput): Promise<NewEntryResult> {
    await this.repair();
    const { planNewEntry, writeNewEntry } = await import("./lifecycle/create.js");
    const plan = await planNewEntry(this.layout, this.config, { ...input, today: this.today() });
    if (!plan.ok) return { kind: "refused", problems: plan.problems };
    await writeNewEntry(plan);
    await this.append([{ type: "created", entry: plan.id }]);
    return { kind: "created", id: plan.id, path: plan.rel, warnings: plan.warnings };
  }

  /** Every active (and with `all`, archived) entry with decay counter, confirmations and warnings. */
  async status(options: StatusOptions = {}): Promise<StatusReport> {
    return buildStatus(await this.#statusInput(), options);
  }

  /** What `status` is computed from: every entry run through the same rules as `check` (the one engine), the ledger and its projection. */
  async #statusInput(): Promise<StatusInput & { entries: KnowledgeView["entries"] }> {
    // The catalogue and the lint cache: the same rules and results as `check`, re-computed only for what changed.
    const view = await this.knowledge();
    const { state, warnings } = await this.ledger.state();
    const { lintCatalogue } = await import("./check/catalogue-lint.js");
    const { diagnostics, cache } = await lintCatalogue({ layout: this.layout, config: this.config, view, events: state, today: this.today() }, this.#lintCache);
    this.#lintCache = cache;
    const views = projectState(state, confirmationInfo(view.entries), { today: this.today() });
    const { liveWarnings } = await import("./anchors/live.js");
    return {
      entries: view.entries,
      diagnostics,
      views,
      events: state,
      config: this.config,
      extra: liveWarnings(view.entries, diagnostics, state),
      ledgerWarnings: [...unreadableEntries(view, diagnostics), ...warnings.map((w) => `${w.file}:${w.line}: ${w.message}`)],
    };
  }

  /**
   * The knowledge report's data (`cairn report`): every entry, active and archived, with its decay, confirmations
   * over runs, holdout evidence, verification and anchor drift; per-agent series; the lifecycle timeline.
   * `renderReportHtml` turns it into the static page.
   */
  async report(options: ReportOptions = {}): Promise<ReportModel> {
    await requireKnowledgeDir(this.layout);
    const input = await this.#statusInput();
    const { buildReportModel } = await import("./report/model.js");
    const project = path.basename(path.resolve(this.layout.root));
    // The report shows each entry's finding and Verify section, and every event of the timeline: the one reader
    // here that needs every body and every ledger line.
    const loaded = await this.load();
    const { events } = await this.ledger.read();
    return buildReportModel(
      { status: buildStatus(input, { all: true }), entries: loaded.entries, diagnostics: input.diagnostics, events, config: this.config, project, now: this.#now() },
      options,
    );
  }

  /** @internal The inject gate's verdict for each entry file (`search --explain`): would it be injected, and if not, which rules withhold it. */
  async gate(files: ReadonlyArray<{ path: string }>): Promise<Map<string, GateVerdict>> {
    const { createLinter } = await import("./check/engine.js");
    const { gateVerdict } = await import("./check/gate.js");
    const linter = await createLinter(this.layout, this.config);
    const out = new Map<string, GateVerdict>();
    for (const { path: rel } of files) {
      const file = entryFileFor(this.layout, rel);
      if (!file) continue;
      const { read, diagnostics } = await linter.lintFile(file, this.today());
      out.set(rel, gateVerdict(diagnostics, read.entry !== undefined));
    }
    return out;
  }

  /** Final diagnostics (every rule, config severities, inline disables) of some entry files, e.g. the ones a watcher saw change. */
  async #lintFiles(files: string[]): Promise<Diagnostic[]> {
    const { createLinter } = await import("./check/engine.js");
    const linter = await createLinter(this.layout, this.config);
    const out: Diagnostic[] = [];
    for (const rel of files) {
      const file = entryFileFor(this.layout, rel);
      if (!file) continue;
      const { read, diagnostics } = await linter.lintFile(file, this.today());
      // Renamed or deleted since the refresh indexed it (an editor's save in progress): the next refresh sees where it went.
      if (!read.bytes && diagnostics.every((d) => d.rule === "file-unreadable")) continue;
      out.push(...diagnostics);
    }
    return out;
  }

  /** Mark an entry independently confirmed today (a one/two-line diff). */
  confirm(id: string): Promise<ManualResult> {
    return this.#withEntry(id, async (record) => {
      // The ledger event carries the anchored lines' fingerprints: the only operation here that needs the entry's body.
      const entry = "evidence" in record ? (record as Entry) : await this.entryOf(record);
      if (!entry) return { kind: "refused", id, reason: `${record.path} changed while confirming "${id}"; run the command again` };
      const { confirmEntry } = await import("./lifecycle/manual.js");
      return confirmEntry(this.layout, await this.#fingerprinting([entry]), entry, this.today());
    });
  }

  /** Delete an entry's file (git keeps its history) and record a `retracted` event. */
  retract(id: string): Promise<ManualResult> {
    return this.#withEntry(id, async (entry) => (await import("./lifecycle/manual.js")).retractEntry(this.layout, this.append, entry));
  }

  /** Move an archived entry back to knowledge/ and confirm it today. */
  restore(id: string, reason = "restored by hand"): Promise<ManualResult> {
    return this.#withEntry(id, async (entry) => (await import("./lifecycle/manual.js")).restoreEntry(this.layout, this.append, entry, reason, this.today()));
  }

  /** Move an active entry to knowledge/archive/ with `archived` and `archivedReason`. */
  archive(id: string, reason: string): Promise<ManualResult> {
    return this.#withEntry(id, async (entry) => (await import("./lifecycle/manual.js")).archiveEntry(this.layout, this.append, entry, reason, this.today()));
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
    const file = entryFileFor(this.layout, record.path);
    if (!file) return undefined;
    const { readEntryFile } = await import("./store/files.js");
    const { entry } = await readEntryFile(this.layout, file, this.today());
    return entry && entry.id === record.id ? entry : undefined;
  }

  /** Build or update the search index in .cairn/ (incremental; `rebuild` starts from scratch). */
  async index(options: IndexOptions = {}): Promise<IndexSummary> {
    if (options.rebuild) await this.#session.rebuild();
    const opened = await this.#session.open();
    await opened.loadLexical(); // the lexical index is part of what `index` builds (loaded first, so the refresh builds into it as it parses)
    const warnings = [...opened.takeOpenWarnings(), ...opened.warnings];
    // `build`: the anchored code and lexical documents of changed entries are built now, not by the next search.
    const { index, run } = await this.#session.refreshNow({ wait: true, build: true, ...this.#progress(options.onProgress) });
    const report = run.report!;
    return { ...report, warnings: [...new Set([...warnings, ...run.warnings])], entries: index.size, embedder: index.embedder?.id ?? null, saved: run.saved };
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
    const { watchIndex } = await import("./indexing/watch.js");
    const index = await this.#session.open();
    const handle = await watchIndex(index, { lint: (files) => this.#lintFiles(files), ...options });
    // The watcher refreshes the shared in-memory index, so searches here need no re-check of their own.
    void handle.ready.then(() => this.#session.setWatched(true), () => undefined);
    return {
      ...handle,
      close: async () => {
        await handle.close();
        this.#session.setWatched(false);
      },
    };
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
    (await import("./retrieval/tokens.js")).prepareTokenCounter();
    const { injectInputSchema, parseInput } = await import("./lifecycle/inputs.js");
    parseInput(injectInputSchema, input, "inject: the input", '{ run: "pr-123", agent: "security", keywords?: ["auth"], summary?: "…" }');
    const { inject } = await import("./retrieval/inject.js");
    const { acquireLock } = await import("./store/lock.js");
    // Serialise read-check-append so concurrent calls for one agent and run cannot exceed the cap.
    let release: (() => Promise<void>) | undefined;
    const lockWarnings: string[] = [];
    // A root without a knowledge dir gets no lock (no .cairn/ is created there); the search below reports it.
    const usable = !(await knowledgeDirProblem(this.layout).catch(() => "unsafe"));
    if (!input.dryRun && usable) {
      await this.repair().catch((error: Error) => lockWarnings.push(`could not repair pending changes (${error.message})`));
      try {
        // Never wait more than 1 s: a review must not stall on the knowledge system.
        release = await acquireLock(this.layout.cache, "inject", { wait: INJECT_LOCK_WAIT_MS, root: this.layout.root, purpose: "injections" });
      } catch (error) {
        // Never block a review on the knowledge system: go on unserialised, say so.
        lockWarnings.push(`could not serialise injections (${(error as Error).message}); concurrent calls for this agent and run may exceed the cap`);
      }
    }
    try {
      const result = await inject(
        {
          layout: this.layout,
          config: this.config,
          events: async () => (await this.ledger.state()).state,
          search: (query, options) => this.search(query, options),
          append: this.append,
          agentScopes: () => this.agentScopes(),
          gate: () => this.#cachedGate(),
          origin: () => this.origin(),
          today: this.today(),
          now: () => this.#now(),
        },
        input,
      );
      return lockWarnings.length ? { ...result, warnings: [...lockWarnings, ...result.warnings] } : result;
    } finally {
      await release?.().catch(() => {});
    }
  }

  /**
   * The inject gate's rule results from the catalogue and the lint cache (computed and kept for entries not in it). A
   * process that has not read the whole lint cache reads only the candidates' results (a few of 10k).
   */
  async #cachedGate(): Promise<import("./retrieval/inject.js").CachedGate> {
    // The candidates' records are read one at a time (the whole records file is not needed).
    const { index } = await this.searchIndex({ records: false });
    const { recordLinter } = await import("./check/catalogue-lint.js");
    const { lintKey, readLintLookup } = await import("./check/lint-cache.js");
    const key = lintKey(this.config, this.layout.cache);
    const input = { layout: this.layout, config: this.config, events: (await this.ledger.state()).state, today: this.today(), key };
    const linters: Array<Awaited<ReturnType<typeof recordLinter>>> = [];
    return {
      record: (p) => index.recordAt(p),
      final: async (records) => {
        const want = { hashes: new Set(records.map((r) => r.fileHash)), paths: new Set(records.map((r) => r.path)) };
        // A long-lived process (an MCP server) reads the file once: the lookup is kept until the whole cache is.
        const base = this.#lintCache ?? (await (this.#lintLookup ??= readLintLookup(this.layout.cache, key))).subset(want);
        const linter = await recordLinter(input, base);
        linters.push(linter);
        return linter.final(records);
      },
      save: async () => {
        for (const linter of linters) {
          const cache = await linter.save("merge");
          if (cache.partial) continue;
          this.#lintCache = cache;
          this.#lintLookup = undefined;
        }
      },
    };
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
    const { parseRecordInput } = await import("./lifecycle/inputs.js");
    const input = parseRecordInput(run, findings);
    if (!options.dryRun) await this.repair();
    const review = await import("./lifecycle/review.js");
    return review.withLifecycleLock(this.layout, !options.dryRun, () => review.recordFindings(this.#reviewDeps(), input.run, input.findings, options));
  }

  /** Archive every active entry past its decay limit (decayAfterRuns injected runs, or its holdout runs spent, since its last confirmation). Never deletes. */
  async decay(options: DecayOptions = {}): Promise<DecayResult> {
    if (!options.dryRun) await this.repair();
    const review = await import("./lifecycle/review.js");
    return review.withLifecycleLock(this.layout, !options.dryRun, async () => review.decayLoaded(this.#reviewDeps(), await this.knowledge(), options));
  }

  /** Turn converging findings (2+ independent agents, durable, evidence + verify, sanitized, not a duplicate) into entries; restore recurring archived ones. */
  async compound(run: string, findings: CompoundFinding[], options: ReviewOptions = {}): Promise<CompoundResult> {
    const { parseCompoundInput } = await import("./lifecycle/inputs.js");
    const input = parseCompoundInput(run, findings);
    if (!options.dryRun) await this.repair();
    const review = await import("./lifecycle/review.js");
    return review.withLifecycleLock(this.layout, !options.dryRun, () => review.compound(this.#reviewDeps(), input.run, input.findings, options));
  }

  /** Repair drifted anchors surgically (moved line ranges, renamed paths); `dryRun` only previews. */
  async fixAnchors(options: FixAnchorsOptions = {}): Promise<FixReport> {
    const { fixEntryAnchors } = await import("./anchors/fix-entries.js");
    const { anchorResolverFor } = await import("./check/anchors.js");
    const { selectEntries } = await import("./anchors/live.js");
    const loaded = await this.load();
    const entries = selectEntries(this.layout, loaded.entries, options.paths);
    const report = await fixEntryAnchors(this.layout.root, anchorResolverFor(this.layout, { repos: this.config.repos }), entries, { dryRun: options.dryRun ?? false, append: this.append });
    if (!report.dryRun && report.files.length) this.invalidate();
    return report;
  }

  /** Run the mechanical verify steps of every (or the given) active entry in-process and record changed results as `verified` events. */
  async verify(options: VerifyOptions = {}): Promise<VerifyReport | NotFound> {
    const { planVerify } = await import("./verify/index.js");
    const loaded = await this.load();
    let entries = loaded.entries.filter((e) => e.state === "active");
    if (options.ids?.length) {
      entries = [];
      for (const id of options.ids) {
        const found = lookup(loaded.byId, id);
        if (found.kind === "not-found") return { kind: "not-found", id, suggestions: found.suggestions };
        entries.push(found.entry);
      }
    }
    const plan = await planVerify(this.layout, entries, (await this.ledger.state()).state);
    if (!options.dryRun && plan.events.length) await this.append(plan.events);
    const count = (r: string) => plan.rows.filter((row) => row.result === r).length;
    return { entries: plan.rows.map((row) => (options.dryRun ? { ...row, recorded: false } : row)), passed: count("passed"), failed: count("failed"), notMechanical: count("not-mechanical"), dryRun: options.dryRun ?? false };
  }

  /** An append that adds anchor fingerprints to the confirmation events of `entries`. */
  async #fingerprinting(entries: Entry[]): Promise<(events: NewEvent[]) => Promise<unknown>> {
    const { appendWithFingerprints } = await import("./anchors/entry.js");
    const { anchorResolverFor } = await import("./check/anchors.js");
    return appendWithFingerprints(this.append, anchorResolverFor(this.layout, { repos: this.config.repos }), entries);
  }

  /** Change an entry's claim status; transitions are validated (superseded is terminal, disputed → verified | superseded). */
  async setStatus(id: string, status: EntryStatus): Promise<ManualResult> {
    const { setStatus } = await import("./lifecycle/supersede.js");
    return this.#withEntry(id, (entry) => setStatus(this.layout, this.append, entry, status));
  }

  /** Link OLD and NEW (supersededBy / supersedes) and archive OLD. */
  async supersede(oldId: string, newId: string): Promise<ManualResult> {
    const { supersede } = await import("./lifecycle/supersede.js");
    await this.repair();
    const known = await this.knowledge();
    const replacement = lookup(known.byId, newId);
    const broken = unreadableEntry(known, newId);
    if (broken) return { kind: "refused", id: newId, reason: broken };
    if (replacement.kind === "not-found") return { kind: "not-found", id: newId, suggestions: replacement.suggestions };
    return this.#withEntry(oldId, (old) => supersede(this.layout, this.append, old, replacement.entry, this.today()));
  }

  /** One entry by id: its text, parsed fields, status row and problems; "not found" carries close ids. */
  async show(id: string): Promise<ShowResult> {
    const { entryView } = await import("./lifecycle/show.js");
    const { readEntryFile } = await import("./store/files.js");
    // The entry's own file when its id is its name; else the catalogue finds the file. Only that file is read and parsed.
    let read = await this.#byFileName(id);
    if (!read) {
      const found = lookup((await this.knowledge()).byId, id);
      if (found.kind === "not-found") return found;
      const file = entryFileFor(this.layout, found.entry.path);
      const again = file ? await readEntryFile(this.layout, file, this.today()) : undefined;
      if (!again?.entry || again.entry.id !== id) return { kind: "not-found", id, suggestions: [] };
      read = { ...again, entry: again.entry };
    }
    const { state } = await this.ledger.state();
    const views = projectState(state, confirmationInfo([read.entry]), { today: this.today() });
    return { kind: "found", entry: await entryView(this.layout, this.config, read.entry, read.diagnostics, views, state) };
  }

  /** An entry's ledger events and git log, oldest first. */
  async history(id: string): Promise<History | NotFound> {
    const { ledgerHistory, gitHistory } = await import("./lifecycle/history.js");
    const loaded = await this.knowledge();
    const { events } = await this.ledger.read();
    const fromLedger = ledgerHistory(events, id);
    if (!loaded.byId.has(id) && !fromLedger.length) {
      const found = lookup(loaded.byId, id);
      return { kind: "not-found", id, suggestions: found.kind === "not-found" ? found.suggestions : [] };
    }
    const git = await gitHistory(this.layout, id);
    const items = [...fromLedger, ...git.items].sort((a, b) => a.time.localeCompare(b.time));
    return { id, items, warnings: git.warning ? [git.warning] : [] };
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

  #reviewDeps(): ReviewDeps {
    return {
      layout: this.layout,
      config: this.config,
      ledger: this.ledger,
      append: this.append,
      today: () => this.today(),
      origin: () => this.origin(),
      knowledge: (options) => this.knowledge(options),
      entryOf: (entry) => this.entryOf(entry),
      search: (query, options) => this.search(query, options),
      refreshBeforeMatching: () => this.#refreshBeforeMatching(),
      invalidate: () => this.invalidate(),
      fingerprinting: (entries) => this.#fingerprinting(entries),
    };
  }

  /**
   * The entry in `<id>.md` (knowledge/ or the archive) when exactly one of the two exists and holds that id: found
   * without the catalogue. Undefined otherwise (an `id:` key, a duplicate, no such file): the catalogue decides.
   */
  async #byFileName(id: string): Promise<(ReadResult & { entry: Entry }) | undefined> {
    if (!isEntryId(id)) return undefined;
    const names = [path.join(this.layout.knowledge, `${id}.md`), path.join(this.layout.archive, `${id}.md`)].filter((f) => existsSync(f));
    const file = names.length === 1 ? entryFileFor(this.layout, names[0]!) : undefined;
    if (!file) return undefined;
    const { readEntryFile } = await import("./store/files.js");
    const read = await readEntryFile(this.layout, file, this.today());
    return read.entry?.id === id ? { ...read, entry: read.entry } : undefined;
  }

  async #withEntry(id: string, action: (entry: EntrySummary) => Promise<ManualResult>): Promise<ManualResult> {
    if (!id || id.includes("/") || id.includes("\\") || id.includes("..")) {
      throw new CairnError("USAGE", `"${id}" is not an entry id; expected the file name without .md, e.g. auth-middleware-swallows-ctx-cancel`);
    }
    await this.repair();
    // The entry's own file first (its id is its file name, as almost always); else the catalogue, just refreshed from
    // the files. The change itself re-reads the file and refuses a stale plan.
    const named = await this.#byFileName(id);
    if (named) {
      const result = await action(named.entry);
      this.invalidate();
      return result;
    }
    const known = await this.knowledge();
    const found = lookup(known.byId, id);
    const broken = unreadableEntry(known, id);
    if (broken) return { kind: "refused", id, reason: broken };
    if (found.kind === "not-found") return { kind: "not-found", id, suggestions: found.suggestions };
    const result = await action(found.entry);
    this.invalidate();
    return result;
  }
}

/** Open the knowledge base at `root` (see OpenOptions). Reads cairn.config.json; nothing heavy is loaded. */
export async function openKnowledgeBase(options: OpenOptions = {}): Promise<KnowledgeBase> {
  const root = options.root ?? findRoot(process.cwd()) ?? gitTop(process.cwd()) ?? process.cwd();
  const fileConfig = await loadConfig(root);
  const config: CairnConfig = applyConfigOverride(fileConfig, options.config);
  const who = { ...(options.actor !== undefined ? { actor: options.actor } : {}), ...(options.origin !== undefined ? { origin: options.origin } : {}) };
  const kb = new KnowledgeBase(layoutFor(root, config), config, options.now ?? (() => new Date()), options.embedder, options.refreshIntervalMs, who);
  if (options.onWarning) kb.onWarning = options.onWarning;
  if (options.onProgress) kb.onProgress = options.onProgress;
  return kb;
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
function confirmationInfo(entries: ReadonlyArray<Pick<Entry, "id" | "frontmatter">>): Array<{ id: string; lastConfirmed?: string }> {
  return entries.map((e) => {
    const lastConfirmed = stringOr(e.frontmatter.lastConfirmed);
    return lastConfirmed === undefined ? { id: e.id } : { id: e.id, lastConfirmed };
  });
}

function optionalOrigin(origin: string | undefined): { origin?: string } {
  return origin === undefined ? {} : { origin };
}
