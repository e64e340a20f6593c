/** The open knowledge base: one typed object the CLI and the MCP server call into. */
import { applyConfigOverride, loadConfig, type CairnConfig } from "./config.js";
import { runCheck, type CheckOptions, type CheckReport } from "./check/run.js";
import { todayUtc } from "./entry/parse.js";
import { frontmatterJsonSchema } from "./entry/schema.js";
import { CairnError } from "./errors.js";
import { openLedger, projectLedger, type Ledger, type NewEvent } from "./ledger/index.js";
import { planNewEntry, writeNewEntry, type NewEntryInput } from "./lifecycle/create.js";
import { archiveEntry, confirmEntry, lookup, restoreEntry, retractEntry, type ManualResult } from "./lifecycle/manual.js";
import { buildStatus, type StatusReport } from "./lifecycle/status.js";
import { initKnowledge, type InitResult } from "./store/init.js";
import { findRoot, layoutFor, type Layout } from "./store/layout.js";
import { loadKnowledge, type LoadedKnowledge } from "./store/load.js";
import type { Progress, SearchIndex, SyncReport } from "./indexing/search-index.js";
import type { Embedder } from "./indexing/embedder.js";
import type { SearchOptions, SearchResponse } from "./retrieval/search.js";
import type { KnowledgeDiff } from "./diff/index.js";
import type { InjectInput, InjectResult } from "./retrieval/inject.js";
import type { Finding } from "./lifecycle/record.js";
import type { CompoundResult, DecayResult, RecordResult, ReviewDeps, ReviewOptions } from "./lifecycle/review.js";
import type { CompoundFinding } from "./lifecycle/compound.js";
import type { History } from "./lifecycle/history.js";
import type { EntryStatus } from "./entry/types.js";

export type { CompoundResult, DecayResult, RecordResult, ReviewOptions } from "./lifecycle/review.js";

export type IndexSummary = SyncReport & {
  /** Entries in the index after the run. */
  entries: number;
  /** Embedder id, or null when lexical-only. */
  embedder: string | null;
  /** True when the index files were written. */
  saved: boolean;
};

export type OpenOptions = {
  /** Project root. Default: the nearest ancestor of the working directory holding `knowledge/` or `cairn.config.json`, else the working directory. */
  root?: string;
  /** Configuration overrides applied on top of `cairn.config.json`, validated like the file (bad values throw CairnError CONFIG). Default none. */
  config?: Partial<CairnConfig>;
  /** Who acts, recorded on every ledger event this knowledge base writes. Default: `$CAIRN_ACTOR`, else `git config user.name`, else the OS user. */
  actor?: string;
  /** Where runs happen, recorded on run events (two branches' `pr-1` are two runs). Default: `<branch>@<clone id>` read from git; none outside git. */
  origin?: string;
  /** Clock for dates and ledger times (tests, simulations). Default `() => new Date()`. */
  now?: () => Date;
  /** Use this embedder instead of the configured one (null = lexical only). Default: from config. */
  embedder?: Embedder | null;
  /** Without a watcher, searches re-check the files for changes at most this often (ms); stat-ing 10k files costs ~150 ms. Default 2000. */
  refreshIntervalMs?: number;
};

export type NewEntryResult = { kind: "created"; id: string; path: string; warnings: CheckReport["diagnostics"] } | { kind: "refused"; problems: CheckReport["diagnostics"] | string };

export class KnowledgeBase {
  readonly layout: Layout;
  readonly config: CairnConfig;
  readonly ledger: Ledger;
  readonly #now: () => Date;
  /** The one open index of this knowledge base, shared by searches, index() and the watcher. */
  #index: Promise<SearchIndex> | undefined;
  #indexFreshAt = 0;

  readonly #embedder: Embedder | null | undefined;

  readonly #refreshIntervalMs: number;

  #actor: Promise<string> | undefined;
  readonly #origin: string | undefined;

  constructor(layout: Layout, config: CairnConfig, now: () => Date, embedder?: Embedder | null, refreshIntervalMs = 2000, who: { actor?: string; origin?: string } = {}) {
    this.layout = layout;
    this.config = config;
    this.ledger = openLedger(layout.ledger);
    this.#now = now;
    this.#embedder = embedder;
    this.#refreshIntervalMs = refreshIntervalMs;
    if (who.actor !== undefined) this.#actor = Promise.resolve(who.actor);
    this.#origin = who.origin;
  }

  /** Append ledger events stamped with this knowledge base's clock, actor and origin. */
  readonly append = async (events: NewEvent[]) => {
    if (!events.length) return [];
    const actor = await this.actor();
    const origin = optionalOrigin(await this.origin());
    return this.ledger.append(events.map((e) => ({ time: this.#now(), actor, ...origin, ...e }) as NewEvent));
  };

  /** Who acts: the name recorded on every ledger event (see OpenOptions.actor). */
  actor(): Promise<string> {
    this.#actor ??= import("./lifecycle/actor.js").then(({ detectActor }) => detectActor(this.layout.root));
    return this.#actor;
  }

  /** Name the actor of every later change (the MCP server sets its client's name). */
  useActor(name: string): void {
    this.#actor = Promise.resolve(name);
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

  /** Every entry file parsed, with per-file diagnostics and duplicate ids. */
  load(): Promise<LoadedKnowledge> {
    return loadKnowledge(this.layout, { today: this.today() });
  }

  /** Run every check rule (see README "Checks"); `duplicates` adds the near-duplicate rule, which uses the search index. */
  async check(options: Omit<CheckOptions, "today" | "extraRules"> & { duplicates?: boolean } = {}): Promise<CheckReport> {
    const { duplicates, ...rest } = options;
    const extraRules: CheckOptions["extraRules"] = duplicates
      ? [
          async (loaded) => {
            const { findNearDuplicates } = await import("./check/duplicates.js");
            const { index } = await this.searchIndex();
            return findNearDuplicates(index, loaded, this.config.duplicateThreshold);
          },
        ]
      : [];
    return runCheck(this.layout, this.config, { today: this.today(), ...rest, extraRules });
  }

  /** Write a new, valid entry; refuses without evidence or verify steps, on a clash, or on sanitization errors. */
  async newEntry(input: Omit<NewEntryInput, "today">): Promise<NewEntryResult> {
    const plan = await planNewEntry(this.layout, this.config, { ...input, today: this.today() });
    if (!plan.ok) return { kind: "refused", problems: plan.problems };
    await writeNewEntry(plan);
    await this.append([{ type: "created", entry: plan.id }]);
    return { kind: "created", id: plan.id, path: plan.rel, warnings: plan.warnings };
  }

  /** Every active (and with `all`, archived) entry with decay counter, confirmations and warnings. */
  async status(options: { all?: boolean } = {}): Promise<StatusReport> {
    const loaded = await this.load();
    const { events, warnings } = await this.ledger.read();
    const views = projectLedger(events, confirmationInfo(loaded.entries), { today: this.today() });
    return buildStatus({ entries: loaded.entries, diagnostics: loaded.diagnostics, views, events, config: this.config, ledgerWarnings: warnings.map((w) => `${w.file}:${w.line}: ${w.message}`) }, options);
  }

  /** Mark an entry independently confirmed today (a one/two-line diff). */
  confirm(id: string): Promise<ManualResult> {
    return this.#withEntry(id, (entry) => confirmEntry(this.layout, this.append, entry, this.today()));
  }

  /** Delete an entry's file (git keeps its history) and record a `retracted` event. */
  retract(id: string): Promise<ManualResult> {
    return this.#withEntry(id, (entry) => retractEntry(this.layout, this.append, entry));
  }

  /** Move an archived entry back to knowledge/ and confirm it today. */
  restore(id: string, reason = "restored by hand"): Promise<ManualResult> {
    return this.#withEntry(id, (entry) => restoreEntry(this.layout, this.append, entry, reason, this.today()));
  }

  /** Move an active entry to knowledge/archive/ with `archived` and `archivedReason`. */
  archive(id: string, reason: string): Promise<ManualResult> {
    return this.#withEntry(id, (entry) => archiveEntry(this.layout, this.append, entry, reason, this.today()));
  }

  /** Build or update the search index in .cairn/ (incremental; `rebuild` starts from scratch). */
  async index(options: { rebuild?: boolean; onProgress?: Progress } = {}): Promise<IndexSummary> {
    const { openSearchIndex, refreshAndSave } = await import("./indexing/open.js");
    if (options.rebuild) this.#index = openSearchIndex(this.layout, this.config, { rebuild: true, ...this.#embedderOverride() });
    const index = await this.#openIndex();
    const warnings = [...index.takeOpenWarnings(), ...index.warnings];
    const run = await refreshAndSave(index, { wait: true, ...(options.onProgress ? { onProgress: options.onProgress } : {}) });
    this.#indexFreshAt = Date.now();
    const report = run.report!;
    return { ...report, warnings: [...new Set([...warnings, ...run.warnings])], entries: index.size, embedder: index.embedder?.id ?? null, saved: run.saved };
  }

  /** Hybrid search (see SearchOptions); the index is refreshed from the files first when stale. */
  async search(query: string, options: SearchOptions = {}): Promise<SearchResponse> {
    const { index, warnings } = await this.searchIndex();
    const { hybridSearch } = await import("./retrieval/search.js");
    const response = await hybridSearch(index, query, options);
    return { ...response, warnings: [...new Set([...warnings, ...response.warnings])] };
  }

  /** The open search index, refreshed from the files at most every refreshIntervalMs (a running watcher refreshes it on change instead). */
  async searchIndex(): Promise<{ index: SearchIndex; warnings: string[] }> {
    const { refreshAndSave } = await import("./indexing/open.js");
    const index = await this.#openIndex();
    let warnings: string[] = [];
    if (Date.now() - this.#indexFreshAt > this.#refreshIntervalMs) {
      warnings = (await refreshAndSave(index)).warnings;
      this.#indexFreshAt = Date.now();
    }
    return { index, warnings: [...index.takeOpenWarnings(), ...index.warnings, ...warnings] };
  }

  /** Watch the knowledge dir and keep the index current until `close()` (holds the index writer lock). */
  async watch(options: import("./indexing/watch.js").WatchOptions = {}): Promise<import("./indexing/watch.js").WatchHandle> {
    const { watchIndex } = await import("./indexing/watch.js");
    const index = await this.#openIndex();
    const handle = await watchIndex(index, {
      ...options,
      onEvent: (event) => {
        // The watcher refreshes the shared in-memory index, so searches here need no refresh of their own.
        this.#indexFreshAt = Number.MAX_SAFE_INTEGER;
        options.onEvent?.(event);
      },
    });
    return {
      ...handle,
      close: async () => {
        await handle.close();
        this.#indexFreshAt = 0;
      },
    };
  }

  /** Forget the cached index so the next search re-reads the files (used by the watcher and after writes). */
  invalidate(): void {
    this.#indexFreshAt = 0;
  }

  /** Matching for record/compound must see every file as it is now (another process may have just written one), unless a watcher keeps the index current. */
  #refreshBeforeMatching(): void {
    if (this.#indexFreshAt !== Number.MAX_SAFE_INTEGER) this.#indexFreshAt = 0;
  }

  /**
   * Knowledge for one agent in one run: at most maxPerAgent entries across all calls for that agent and run,
   * above the relevance floor; records an `injected` event unless dryRun. Never throws for search failures.
   */
  async inject(input: InjectInput): Promise<InjectResult> {
    const { injectInputSchema, parseInput } = await import("./lifecycle/inputs.js");
    parseInput(injectInputSchema, input, "inject: the input", '{ run: "pr-123", agent: "security", keywords?: ["auth"], summary?: "…" }');
    const { inject } = await import("./retrieval/inject.js");
    const { acquireIndexLock } = await import("./indexing/lock.js");
    // Serialise read-check-append so concurrent calls for one agent and run cannot exceed the cap.
    let release: (() => Promise<void>) | undefined;
    const lockWarnings: string[] = [];
    if (!input.dryRun) {
      try {
        release = await acquireIndexLock(`${this.layout.cache}/inject`, { wait: true });
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
          events: async () => (await this.ledger.read()).events,
          search: (query, options) => this.search(query, options),
          append: this.append,
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
   * Record a run's findings: independent re-discoveries refresh entries (or restore archived ones), primed ones only
   * add events; a finding already recorded for (run, agent) is not counted again; then decay runs.
   */
  async recordFindings(run: string, findings: Finding[], options: ReviewOptions = {}): Promise<RecordResult> {
    const { parseRecordInput } = await import("./lifecycle/inputs.js");
    const input = parseRecordInput(run, findings);
    const review = await import("./lifecycle/review.js");
    return review.withLifecycleLock(this.layout, !options.dryRun, () => review.recordFindings(this.#reviewDeps(), input.run, input.findings, options));
  }

  /** Archive every active entry past its decay limit (decayAfterRuns injected runs, or its holdout runs spent, since its last confirmation). Never deletes. */
  async decay(options: { dryRun?: boolean; run?: string } = {}): Promise<DecayResult> {
    const review = await import("./lifecycle/review.js");
    return review.withLifecycleLock(this.layout, !options.dryRun, async () => review.decayLoaded(this.#reviewDeps(), await this.load(), options));
  }

  /** Turn converging findings (2+ independent agents, durable, evidence + verify, sanitized, not a duplicate) into entries; restore recurring archived ones. */
  async compound(run: string, findings: CompoundFinding[], options: ReviewOptions = {}): Promise<CompoundResult> {
    const { parseCompoundInput } = await import("./lifecycle/inputs.js");
    const input = parseCompoundInput(run, findings);
    const review = await import("./lifecycle/review.js");
    return review.withLifecycleLock(this.layout, !options.dryRun, () => review.compound(this.#reviewDeps(), input.run, input.findings, options));
  }

  /** Change an entry's claim status; transitions are validated (superseded is terminal, disputed → verified | superseded). */
  async setStatus(id: string, status: EntryStatus): Promise<ManualResult> {
    const { setStatus } = await import("./lifecycle/supersede.js");
    return this.#withEntry(id, (entry) => setStatus(this.layout, this.append, entry, status));
  }

  /** Link OLD and NEW (supersededBy / supersedes) and archive OLD. */
  async supersede(oldId: string, newId: string): Promise<ManualResult> {
    const { supersede } = await import("./lifecycle/supersede.js");
    const loaded = await this.load();
    const replacement = lookup(loaded.byId, newId);
    if (replacement.kind === "not-found") return { kind: "not-found", id: newId, suggestions: replacement.suggestions };
    return this.#withEntry(oldId, (old) => supersede(this.layout, this.append, old, replacement.entry, this.today()));
  }

  /** An entry's ledger events and git log, oldest first. */
  async history(id: string): Promise<History | { kind: "not-found"; id: string; suggestions: string[] }> {
    const { ledgerHistory, gitHistory } = await import("./lifecycle/history.js");
    const loaded = await this.load();
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

  /** Open the index once; concurrent callers share the same pending open. */
  #openIndex(): Promise<SearchIndex> {
    this.#index ??= import("./indexing/open.js").then(({ openSearchIndex }) => openSearchIndex(this.layout, this.config, this.#embedderOverride()));
    const opening = this.#index;
    opening.catch(() => {
      if (this.#index === opening) this.#index = undefined;
    });
    return opening;
  }

  #reviewDeps(): ReviewDeps {
    return {
      layout: this.layout,
      config: this.config,
      ledger: this.ledger,
      append: this.append,
      today: () => this.today(),
      origin: () => this.origin(),
      load: () => this.load(),
      search: (query, options) => this.search(query, options),
      refreshBeforeMatching: () => this.#refreshBeforeMatching(),
      invalidate: () => this.invalidate(),
    };
  }

  #embedderOverride(): { embedder?: Embedder | null } {
    return this.#embedder === undefined ? {} : { embedder: this.#embedder };
  }

  async #withEntry(id: string, action: (entry: NonNullable<ReturnType<LoadedKnowledge["byId"]["get"]>>) => Promise<ManualResult>): Promise<ManualResult> {
    if (!id || id.includes("/") || id.includes("\\") || id.includes("..")) {
      throw new CairnError("USAGE", `"${id}" is not an entry id; expected the file name without .md, e.g. auth-middleware-swallows-ctx-cancel`);
    }
    const loaded = await this.load();
    const found = lookup(loaded.byId, id);
    if (found.kind === "not-found") return { kind: "not-found", id, suggestions: found.suggestions };
    const result = await action(found.entry);
    this.invalidate();
    return result;
  }
}

/** Open the knowledge base at `root` (see OpenOptions). Reads cairn.config.json; nothing heavy is loaded. */
export async function openKnowledgeBase(options: OpenOptions = {}): Promise<KnowledgeBase> {
  const root = options.root ?? findRoot(process.cwd()) ?? process.cwd();
  const fileConfig = await loadConfig(root);
  const config: CairnConfig = applyConfigOverride(fileConfig, options.config);
  const who = { ...(options.actor !== undefined ? { actor: options.actor } : {}), ...(options.origin !== undefined ? { origin: options.origin } : {}) };
  return new KnowledgeBase(layoutFor(root, config), config, options.now ?? (() => new Date()), options.embedder, options.refreshIntervalMs, who);
}

function stringOr(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** What the ledger projection needs of each entry. */
function confirmationInfo(entries: LoadedKnowledge["entries"]): Array<{ id: string; lastConfirmed?: string }> {
  return entries.map((e) => {
    const lastConfirmed = stringOr(e.frontmatter.lastConfirmed);
    return lastConfirmed === undefined ? { id: e.id } : { id: e.id, lastConfirmed };
  });
}

function optionalOrigin(origin: string | undefined): { origin?: string } {
  return origin === undefined ? {} : { origin };
}
