/** The ledger API: an open ledger directory with append, cached read and projections. */
import { stat } from "node:fs/promises";
import path from "node:path";
import { CairnError } from "../errors.js";
import type { LedgerEvent } from "./events.js";
import { appendEvents, type NewEvent } from "./append.js";
import { type EntryConfirmationInfo, type EntryLedgerView, projectLedger, type ProjectOptions } from "./projections.js";
import { injectionsForRun, type RunRef, wasInjected } from "./runs.js";
import {
  assertLedgerContained,
  type LedgerReadResult,
  ledgerFileLabel,
  listLedgerFiles,
  mergeLedgerFiles,
  type ParsedLedgerFile,
  type ReadLedgerOptions,
  readLedgerFile,
} from "./read.js";

export type { LedgerEvent } from "./events.js";
export { LEDGER_SCHEMA_VERSION } from "./events.js";
export { appendEvents, ledgerFileFor, MAX_WRITE_BYTES, type NewEvent } from "./append.js";
export { type LedgerReadResult, type LedgerWarning, parseLedgerText, readLedger, type ReadLedgerOptions } from "./read.js";
export { confirmationInstant, frontmatterInstant, isUnexplainedDate, resetsCounter } from "./clock.js";
export { type EntryConfirmationInfo, type EntryLedgerView, projectLedger, type ProjectOptions } from "./projections.js";
export { heldOutForRun, injectionsForRun, knownRuns, runKey, type RunRecord, runRecord, type RunRef, sameRun, wasInjected } from "./runs.js";

export type LedgerOptions = ReadLedgerOptions;

type CachedFile = { signature: string; parsed: ParsedLedgerFile };

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

  /** Decay counters and confirmation counts for `entries` (lifecycle rule 3). */
  async project(entries: readonly EntryConfirmationInfo[], options: ProjectOptions = {}): Promise<Map<string, EntryLedgerView>> {
    return projectLedger((await this.read()).events, entries, options);
  }

  /** Entry ids already injected in `run` into `agent` (or any agent when omitted). */
  async injectionsForRun(run: string | RunRef, agent?: string): Promise<string[]> {
    return injectionsForRun((await this.read()).events, run, agent);
  }

  /** True when `entryId` was injected into `agent` in `run`. */
  async wasInjected(run: string | RunRef, agent: string, entryId: string): Promise<boolean> {
    return wasInjected((await this.read()).events, run, agent, entryId);
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

/** Open the ledger in `dir` (usually `knowledge/.ledger`). Nothing is read or created until used. */
export function openLedger(dir: string, options: LedgerOptions = {}): Ledger {
  return new Ledger(dir, options);
}
