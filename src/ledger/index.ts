/** The ledger API: an open ledger directory with append, cached read, and its folded state kept in a snapshot. */
import { stat } from "node:fs/promises";
import { lstatSync } from "node:fs";
import path from "node:path";
import { CairnError } from "../errors.js";
import type { LedgerEvent } from "./events.js";
import { appendEvents, type NewEvent } from "./append.js";
import { advance } from "./advance.js";
import { type EntryConfirmationInfo, type EntryLedgerView, projectState, type ProjectOptions } from "./projections.js";
import type { RunRef } from "./run-ref.js";
import {
  assertLedgerContained,
  type LedgerReadResult,
  type LedgerWarning,
  ledgerFileLabel,
  listLedgerFiles,
  mergeLedgerFiles,
  type ParsedLedgerFile,
  type ReadLedgerOptions,
  readLedgerFile,
  warning,
} from "./read.js";
import { type Folded, loadSnapshot, saveSnapshot } from "./snapshot.js";
import type { LedgerState } from "./state.js";
import { openLedgerFile } from "./tail.js";

export type { LedgerEvent } from "./events.js";
export { LEDGER_SCHEMA_VERSION } from "./events.js";
export { appendEvents, ledgerFileFor, MAX_WRITE_BYTES, type NewEvent } from "./append.js";
export { describeLedgerWarning, type LedgerReadResult, type LedgerWarning, parseLedgerText, readLedger, type ReadLedgerOptions } from "./read.js";
export { confirmationInstant, frontmatterInstant, isUnexplainedDate, resetsCounter } from "./clock.js";
export { type EntryConfirmationInfo, type EntryLedgerView, projectLedger, projectState, type ProjectOptions } from "./projections.js";
export { heldOutForRun, injectionsForRun, knownRuns, runKey, type RunRecord, runRecord, type RunRef, sameRun, wasInjected } from "./runs.js";
export { foldEvents, type LedgerSource, ledgerState } from "./source.js";
export { affirms, type ConfirmedPrints, LedgerState, type VerificationState } from "./state.js";
export { SNAPSHOT_FILE, snapshotFileIn } from "./snapshot.js";

export type LedgerOptions = ReadLedgerOptions & {
  /**
   * File to keep the folded ledger in (usually `.cairn/ledger-state.json`): a new process then folds only the events
   * appended since it was written instead of parsing every line. Default: none (each process folds the whole ledger once).
   */
  snapshot?: string;
  /**
   * Rewrite the snapshot once this many events were folded beyond it, or after a full re-fold; a ledger smaller than
   * this has none (parsing it is cheaper than writing one). Default 256.
   */
  snapshotEvery?: number;
};

/** The folded ledger and the warnings `read()` would give. */
export type LedgerStateResult = {
  /** The folded ledger. Live: a later `state()` call folds new events into this same object (or replaces it after a re-fold). */
  state: LedgerState;
  /** Skipped lines and duplicate ids, as `read()` reports them. */
  warnings: LedgerWarning[];
};

type CachedFile = { signature: string; parsed: ParsedLedgerFile };

/**
 * The folded ledger of one directory (and snapshot file), shared by every Ledger of it in this
 * process: the knowledge base's and the anchor resolver's fold it once. `queue` runs one fold at a
 * time, so two concurrent calls never fold the same tail twice.
 */
type Shared = {
  folded: Folded | undefined;
  /** Events in the snapshot on disk (as loaded or last written); undefined when there is none. */
  saved: number | undefined;
  saveFailed: boolean;
  queue: Promise<unknown>;
};

const shared = new Map<string, Shared>();
/** Folded ledgers kept per process (a test process opens many temporary ones). */
const MAX_SHARED = 16;

/** Forget every folded ledger this process keeps (the next `state()` starts from the snapshot, as a new process would). */
export function forgetFoldedLedgers(): void {
  shared.clear();
}

function sharedFor(key: string): Shared {
  let entry = shared.get(key);
  if (entry === undefined) {
    if (shared.size >= MAX_SHARED) shared.delete(shared.keys().next().value as string);
    entry = { folded: undefined, saved: undefined, saveFailed: false, queue: Promise.resolve() };
    shared.set(key, entry);
  }
  return entry;
}

/**
 * An open ledger directory. `read()` re-parses only files whose inode, size or mtime changed
 * since the last call, and returns the very same result object when nothing changed, so
 * callers may read freely; treat the returned arrays and events as read-only.
 */
export class Ledger {
  readonly dir: string;
  readonly #options: LedgerOptions;
  readonly #files = new Map<string, CachedFile>();
  #result: { key: string; value: LedgerReadResult } | undefined;
  #stateResult: { key: string; value: LedgerStateResult } | undefined;

  constructor(dir: string, options: LedgerOptions = {}) {
    this.dir = dir;
    this.#options = options;
  }

  /** Append events (see `appendEvents`); returns them as written. */
  append(events: readonly NewEvent[]): Promise<LedgerEvent[]> {
    return appendEvents(this.dir, events, this.#options.root !== undefined ? { root: this.#options.root } : {});
  }

  /** All events, de-duplicated and sorted by time then eventId, with warnings for skipped lines. */
  async read(): Promise<LedgerReadResult> {
    await assertLedgerContained(this.dir, this.#options);
    const names = await listLedgerFiles(this.dir);
    const signatures = await Promise.all(names.map((name) => this.#signature(name)));
    const key = names.map((name, i) => `${name}\0${signatures[i]}`).join("\n");
    if (this.#result?.key === key) return this.#result.value;
    const parsed = await Promise.all(
      names.map(async (name, i) => {
        const signature = signatures[i] as string;
        const cached = this.#files.get(name);
        if (cached?.signature === signature) return cached.parsed;
        const file = await readLedgerFile(path.join(this.dir, name), ledgerFileLabel(this.dir, name, this.#options));
        this.#files.set(name, { signature, parsed: file });
        return file;
      }),
    );
    for (const name of this.#files.keys()) if (!names.includes(name)) this.#files.delete(name);
    const value = mergeLedgerFiles(parsed);
    this.#result = { key, value };
    return value;
  }

  /**
   * The folded ledger (state.ts): what every projection needs, without the event list. From the
   * snapshot (when configured) plus the lines appended since; a ledger file rewritten in the middle,
   * replaced or removed, or an appended event that sorts before the ones already folded, means a
   * full re-fold (advance.ts). Returns the same result object while no file changed.
   */
  async state(): Promise<LedgerStateResult> {
    await assertLedgerContained(this.dir, this.#options);
    const entry = sharedFor(`${path.resolve(this.dir)}\u0000${this.#options.snapshot ?? ""}`);
    const run = entry.queue.then(() => this.#state(entry));
    entry.queue = run.catch(() => {});
    return run;
  }

  async #state(entry: Shared): Promise<LedgerStateResult> {
    const names = await listLedgerFiles(this.dir);
    // Nothing changed since the last fold (most calls of a long-lived process): the files' signatures by path say so
    // without opening them. Anything else (a file changed, replaced by a link, vanished) takes the path below.
    const last = this.#stateResult;
    if (last !== undefined && last.value.state === entry.folded?.state && last.key === signaturesByPath(this.dir, names)) return last.value;
    const opened = await Promise.allSettled(names.map((name) => openLedgerFile(path.join(this.dir, name), name)));
    const files = opened.flatMap((o) => (o.status === "fulfilled" && o.value !== undefined ? [o.value] : []));
    try {
      const failed = opened.find((o): o is PromiseRejectedResult => o.status === "rejected");
      if (failed) throw failed.reason;
      const key = files.map((f) => `${f.name}\u0000${f.stat.dev}:${f.stat.ino}:${f.stat.size}:${f.stat.mtimeNs}`).join("\n");
      if (this.#stateResult?.key === key && this.#stateResult.value.state === entry.folded?.state) return this.#stateResult.value;
      const snapshot = this.#options.snapshot;
      if (entry.folded === undefined && snapshot !== undefined) {
        entry.folded = await loadSnapshot(snapshot, this.dir, this.#rootOption());
        entry.saved = entry.folded?.state.size;
      }
      let rebuilt = entry.folded === undefined;
      let folded = await advance(entry.folded, files);
      if (folded === "stale") {
        rebuilt = true;
        folded = (await advance(undefined, files)) as Folded;
      }
      entry.folded = folded;
      await this.#save(entry, rebuilt);
      const value: LedgerStateResult = { state: folded.state, warnings: this.#warnings(folded) };
      this.#stateResult = { key, value };
      return value;
    } finally {
      await Promise.all(files.map((f) => f.handle.close().catch(() => {})));
    }
  }

  /** Write the snapshot after a re-fold or once enough events were folded beyond it; a cache, so a failure only stops further attempts. */
  async #save(entry: Shared, rebuilt: boolean): Promise<void> {
    const snapshot = this.#options.snapshot;
    const folded = entry.folded;
    const every = this.#options.snapshotEvery ?? 256;
    if (snapshot === undefined || folded === undefined || entry.saveFailed) return;
    // A snapshot on disk that no longer matches the files is replaced whatever the size: every process would re-fold past it.
    const due = rebuilt ? folded.state.size >= every || entry.saved !== undefined : folded.state.size - (entry.saved ?? 0) >= every;
    if (!due) return;
    try {
      await saveSnapshot(snapshot, this.dir, folded, this.#rootOption());
      entry.saved = folded.state.size;
    } catch {
      entry.saveFailed = true;
    }
  }

  #warnings(folded: Folded): LedgerWarning[] {
    const out: LedgerWarning[] = [];
    const label = (name: string) => ledgerFileLabel(this.dir, name, this.#options);
    for (const [name, coverage] of folded.files) {
      for (const w of [...coverage.warnings, ...coverage.pending]) out.push(warning(label(name), w.line, w.rule, w.message, w.aheadRun));
    }
    for (const d of folded.duplicates) out.push(warning(label(d.name), d.line, d.rule, d.message));
    return out;
  }

  #rootOption(): { root?: string } {
    return this.#options.root === undefined ? {} : { root: this.#options.root };
  }

  /** Decay counters and confirmation counts for `entries` (lifecycle rule 3). */
  async project(entries: readonly EntryConfirmationInfo[], options: ProjectOptions = {}): Promise<Map<string, EntryLedgerView>> {
    return projectState((await this.state()).state, entries, options);
  }

  /** Entry ids already injected in `run` into `agent` (or any agent when omitted). */
  async injectionsForRun(run: string | RunRef, agent?: string): Promise<string[]> {
    return (await this.state()).state.injectionsForRun(run, agent);
  }

  /** True when `entryId` was injected into `agent` in `run`. */
  async wasInjected(run: string | RunRef, agent: string, entryId: string): Promise<boolean> {
    return (await this.state()).state.wasInjected(run, agent, entryId);
  }

  /** Signature taken before reading, so a file that grows while being read is re-read next time. */
  async #signature(name: string): Promise<string> {
    try {
      const s = await stat(path.join(this.dir, name), { bigint: true });
      return `${s.ino}:${s.size}:${s.mtimeNs}`;
    } catch (cause) {
      if ((cause as NodeJS.ErrnoException).code === "ENOENT") return "missing";
      throw new CairnError("IO", `Cannot stat ledger file ${path.join(this.dir, name)}: ${(cause as Error).message}`, { cause });
    }
  }
}

/** The state key of `names` from their stats by path (as `#state` keys them from their handles); undefined when one is not a regular file now. */
function signaturesByPath(dir: string, names: readonly string[]): string | undefined {
  const out: string[] = [];
  for (const name of names) {
    const s = lstatSync(path.join(dir, name), { bigint: true, throwIfNoEntry: false });
    if (!s?.isFile()) return undefined;
    out.push(`${name}\u0000${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}`);
  }
  return out.join("\n");
}

/** Open the ledger in `dir` (usually `knowledge/.ledger`). Nothing is read or created until used. */
export function openLedger(dir: string, options: LedgerOptions = {}): Ledger {
  return new Ledger(dir, options);
}
