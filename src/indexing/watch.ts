/**
 * `cairn watch`: keep the index current while humans edit. Directory watches report changes to the
 * entry files (watch-dirs.ts) and chokidar (loaded lazily) changes to the source files entries' anchored
 * code was read from (watch-sources.ts); changes are debounced, then the index is refreshed from the files (only
 * changed files are parsed, only changed text is embedded, only entries anchored in a changed source
 * file have their anchored code read again) and saved. The watcher holds the writer lock and keeps
 * the lexical index loaded, so what it saves is complete.
 */
import { statSync } from "node:fs";
import path from "node:path";
import { COLLECT_FROM_ENTRIES, collectGarbage } from "../store/gc.js";
import type { Diagnostic } from "../entry/diagnostic.js";
import { isCairnError } from "../errors.js";
import { heldByThisProcess, liveHolder } from "../store/lock.js";
import { acquireIndexLock } from "./lock.js";
import type { SearchIndex, SyncReport } from "./search-index.js";
import { watchEntryDirs } from "./watch-dirs.js";
import { watchSources } from "./watch-sources.js";
import type { WatchHandle, WatchOptions } from "../types/indexing.js";

export type { WatchEvent, WatchHandle, WatchOptions } from "../types/indexing.js";

export async function watchIndex(index: SearchIndex, options: WatchOptions = {}): Promise<WatchHandle> {
  const debounceMs = options.debounceMs ?? 150;
  const settleMs = options.settleMs ?? 500;
  const emit = options.onEvent ?? (() => {});
  const release = await acquireIndexLock(index.layout.cache, { wait: false, root: index.layout.root }).catch(async (error: unknown) => {
    // This process's own refresh holds it for a moment (an MCP server's first tool call arrived before its watcher
    // started): wait for it, rather than run the whole server without a watcher. Another process's lock is refused.
    const holder = isCairnError(error) && error.code === "LOCKED" ? await liveHolder(index.layout.cache, "index") : undefined;
    if (!holder || !heldByThisProcess(holder)) throw error;
    return acquireIndexLock(index.layout.cache, { wait: true, root: index.layout.root });
  });

  let timer: NodeJS.Timeout | undefined;
  let recheck: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let waiters: Array<() => void> = [];
  let closed = false;
  let reported = new Set<string>();
  let heldByRules = new Set<string>();
  let schedule = (): void => {};
  /** process.hrtime of the start of the latest refresh whose re-check of the files is done (in memory). */
  let checkedFrom = -1n;
  /** process.hrtime of the start of the refresh now re-checking the files, if one is. */
  let checkingFrom: bigint | undefined;
  let freshWaiters: Array<{ since: bigint; resolve: (ok: boolean) => void }> = [];
  const answerFresh = (startedAt: bigint, ok: boolean): void => {
    const due = freshWaiters.filter((w) => w.since <= startedAt);
    freshWaiters = freshWaiters.filter((w) => w.since > startedAt);
    for (const w of due) w.resolve(ok);
  };
  const sources = await watchSources(index.layout.root, () => schedule(), (message) => emit({ type: "error", message }));

  const refresh = async (final = false): Promise<void> => {
    const started = Date.now();
    const startedAt = process.hrtime.bigint();
    checkingFrom = startedAt;
    const pending = waiters;
    waiters = [];
    let checked = false;
    try {
      await index.loadLexical();
      const refreshed = await index.refresh();
      checked = true;
      checkingFrom = undefined;
      if (startedAt > checkedFrom) checkedFrom = startedAt;
      answerFresh(startedAt, true);
      await sources.sync(index.anchoredSources());
      const { report, problems } = await withRuleProblems(index, refreshed, options.lint, [...heldByRules]);
      // Searchable now (in memory); the save below only makes it visible to other processes.
      // A broken file is re-read while its stat is recent: report each problem once, not every time. A problem in a
      // file still being written is held until the file has settled; then the file is read again (its stat is still
      // recent) or, for a rule error, linted again.
      const key = (d: Diagnostic): string => `${d.file}:${d.line}:${d.column}:${d.rule}:${d.message}`;
      const unsettled = final ? new Set<string>() : writtenWithin(index.layout.root, problems, settleMs);
      const fresh = problems.filter((d) => !reported.has(key(d)) && !unsettled.has(d.file));
      reported = new Set(problems.filter((d) => !unsettled.has(d.file) || reported.has(key(d))).map(key));
      if (fresh.length) emit({ type: "invalid", diagnostics: fresh });
      const parseFailed = new Set(refreshed.errors.map((d) => d.file));
      heldByRules = new Set(problems.filter((d) => !reported.has(key(d)) && !parseFailed.has(d.file)).map((d) => d.file));
      if (problems.some((d) => !reported.has(key(d)))) {
        clearTimeout(recheck);
        recheck = setTimeout(() => {
          if (!closed) enqueue();
        }, settleMs);
      }
      const changed = report.added.length + report.updated.length + report.removed.length + report.moved.length + report.codeChanged.length;
      if (changed) emit({ type: "updated", report, ms: Date.now() - started });
      await index.save();
      // A refresh of a large knowledge base leaves hundreds of MB of garbage (every file stat'ed, the catalogue
      // written); V8 would let a watcher grow to gigabytes before collecting it. Edits arrive at human pace.
      if (index.size >= COLLECT_FROM_ENTRIES) collectGarbage();
    } catch (error) {
      emit({ type: "error", message: (error as Error).message });
    } finally {
      if (!checked) (checkingFrom = undefined), answerFresh(startedAt, false);
      for (const resolve of pending) resolve();
    }
  };
  /** Refreshes run one after another. */
  const enqueue = (): Promise<void> => (running = running.then(() => refresh()));
  schedule = (): void => {
    if (closed) return;
    clearTimeout(timer);
    timer = setTimeout(enqueue, debounceMs);
  };

  // Editors' atomic saves (write temp + rename) arrive as several events; the debounce merges them.
  const dirs = watchEntryDirs(index.layout.knowledge, index.layout.archive, () => schedule(), (message) => emit({ type: "error", message }));

  const ready = (async () => {
    // The first refresh starts after the directories are watched: no change falls between the two.
    await enqueue();
    emit({ type: "ready", entries: index.size });
  })();

  return {
    ready,
    settled: () => new Promise<void>((resolve) => waiters.push(resolve)),
    freshAsOf: (since) => {
      if (closed) return Promise.resolve(false);
      if (checkedFrom >= since) return Promise.resolve(true);
      // The refresh re-checking the files now counts if it started after `since`. No other is started for the
      // caller: a watcher refresh also lints and saves, which a reader re-checking the files itself does not.
      if (checkingFrom === undefined || checkingFrom < since) return Promise.resolve(false);
      return new Promise<boolean>((resolve) => freshWaiters.push({ since, resolve }));
    },
    async close() {
      closed = true;
      for (const waiter of freshWaiters.splice(0)) waiter.resolve(false);
      clearTimeout(timer);
      clearTimeout(recheck);
      dirs.close();
      await sources.close();
      await running;
      await refresh(true);
      await release();
    },
  };
}

/**
 * Parse failures, plus rule errors of the files this refresh (re)indexed: a file with an error is
 * reported as invalid with its diagnostics and left out of the `updated` lists.
 */
async function withRuleProblems(
  index: SearchIndex,
  report: SyncReport,
  lint: WatchOptions["lint"],
  /** Files (repo-relative) whose rule errors were held back until they settled: linted again although unchanged. */
  held: string[],
): Promise<{ report: SyncReport; problems: Diagnostic[] }> {
  if (!lint) return { report, problems: report.errors };
  const changedIds = [...report.added, ...report.updated, ...report.moved];
  const changed = changedIds.map((id) => index.meta(id)?.path).filter((p): p is string => p !== undefined);
  const stillThere = held.filter((file) => statSync(path.resolve(index.layout.root, file), { throwIfNoEntry: false })?.isFile());
  const files = [...new Set([...changed, ...stillThere])];
  if (!files.length) return { report, problems: report.errors };
  const diagnostics = await lint(files);
  const broken = new Set(diagnostics.filter((d) => d.severity === "error").map((d) => d.file));
  if (!broken.size) return { report, problems: report.errors };
  const ok = (id: string): boolean => !broken.has(index.meta(id)?.path ?? "");
  return {
    report: { ...report, added: report.added.filter(ok), updated: report.updated.filter(ok), moved: report.moved.filter(ok) },
    problems: [...report.errors, ...diagnostics.filter((d) => broken.has(d.file))],
  };
}

/** Files (repo-relative, as diagnostics name them) of these problems modified less than `ms` ago (or ahead). */
function writtenWithin(root: string, problems: Diagnostic[], ms: number): Set<string> {
  const recent = new Set<string>();
  const now = Date.now();
  for (const file of new Set(problems.map((d) => d.file))) {
    const stat = statSync(path.resolve(root, file), { throwIfNoEntry: false });
    // An mtime far in the future (a clock skew, a `touch -d`) never settles: it counts as settled, or the problem would
    // never be reported and the file re-read every `ms` for good.
    const age = stat ? now - stat.mtimeMs : Number.POSITIVE_INFINITY;
    if (age > -ms && age < ms) recent.add(file);
  }
  return recent;
}
