/** Read the ledger: parse every `*.jsonl` file, skip bad lines with warnings, de-duplicate, sort. */
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import type { Diagnostic } from "../entry/diagnostic.js";
import { CairnError } from "../errors.js";
import { assertContained } from "../store/contain.js";
import type { LedgerEvent } from "./events.js";
import { compareEvents } from "./order.js";
import { checkEvent } from "./validate.js";

/** A skipped or suspicious ledger line. Rules: `ledger-torn-line`, `ledger-invalid-line`, `ledger-unknown-version`, `ledger-duplicate-id`. */
/**
 * `aheadRun`: the run of an `injected` or `held-out` event skipped for being dated ahead of this machine's clock. Who
 * was shown what in that run is then unknown here, so `record` and `compound` refuse that run (src/lifecycle/review.ts).
 */
export type LedgerWarning = Diagnostic & { severity: "warning"; aheadRun?: string };

/** The run of a run event (an injection or a holdout): what an agent was shown depends on it. */
function aheadRun(event: LedgerEvent): string | undefined {
  return event.type === "injected" || event.type === "held-out" ? event.run : undefined;
}

/** Events (sorted by time, then eventId; de-duplicated by eventId) and the warnings met on the way. */
export type LedgerReadResult = { events: LedgerEvent[]; warnings: LedgerWarning[] };

/** The events of one file, in file order, before merging. */
export type ParsedLedgerFile = {
  file: string;
  events: LedgerEvent[];
  /** 1-based line number of each event, parallel to `events`. */
  lines: number[];
  warnings: LedgerWarning[];
};

export type ReadLedgerOptions = {
  /** Directory that warning file paths are made relative to. Default: none (paths are `ledgerDir` joined with the file name). */
  relativeTo?: string;
  /** Repository root: refuse (CairnError UNSAFE_PATH) to read or append through a link leaving it. Default: no check. */
  root?: string;
};

/** A ledger warning at `file`:`line`. */
export function warning(file: string, line: number, rule: string, message: string, aheadRun?: string): LedgerWarning {
  return { file, line, column: 1, rule, severity: "warning", message, ...(aheadRun !== undefined ? { aheadRun } : {}) };
}

/** A ledger warning as one line for people: `file:line: message`. */
export function describeLedgerWarning(w: LedgerWarning): string {
  return `${w.file}:${w.line}: ${w.message}`;
}

/** A line git writes around a merge conflict: `<<<<<<< ours`, `=======`, `>>>>>>> theirs`, `||||||| base`. */
const CONFLICT_MARKER = /^(?:<{7}|={7}|>{7}|\|{7})(?: |$)/;

/** Every line we write starts with this; JSON string values cannot contain it unescaped. */
const LINE_START = '{"v":';

/**
 * A crash can leave a torn line without "\n"; the next append then lands on the same line.
 * Recover that complete event: it starts at one of the later `{"v":` on the line.
 */
function recoverGlued(line: string): unknown {
  for (let start = line.indexOf(LINE_START, 1); start > 0; start = line.indexOf(LINE_START, start + 1)) {
    try {
      return JSON.parse(line.slice(start));
    } catch {
      // not the start of the glued event; try the next candidate
    }
  }
  return undefined;
}

/** Where a piece of a ledger file starts, when it is not the whole file (a tail read from an offset). */
export type TextPosition = {
  /** Line number of the text's first line. Default 1. */
  firstLine?: number;
  /** The text starts the file, so a byte order mark is skipped. Default true. */
  atStart?: boolean;
};

/** How far past this machine's clock an event's time may be: clocks of the machines that append disagree a little. */
const CLOCK_SKEW_MS = 24 * 60 * 60 * 1000;

/** The latest time an event read now may carry. */
function latestEventTime(): string {
  return new Date(Date.now() + CLOCK_SKEW_MS).toISOString();
}

/** Parse the text of one ledger file (or of its tail, see `TextPosition`). `file` is only used to label warnings. */
export function parseLedgerText(text: string, file: string, position: TextPosition = {}): ParsedLedgerFile {
  const events: LedgerEvent[] = [];
  const numbers: number[] = [];
  const warnings: LedgerWarning[] = [];
  const body = text.charCodeAt(0) === 0xfeff && position.atStart !== false ? text.slice(1) : text;
  const lines = body.split("\n");
  const last = lines.length - 1;
  const first = position.firstLine ?? 1;
  let latest: string | undefined;
  for (let i = 0; i <= last; i++) {
    const line = lines[i] as string;
    if (line.length === 0 || (line.length < 3 && line.trim() === "")) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (cause) {
      value = recoverGlued(line);
      if (value !== undefined) {
        warnings.push(warning(file, i + first, "ledger-torn-line", "fragment of an interrupted write skipped; the complete event after it on this line was kept"));
      } else if (i === last && !CONFLICT_MARKER.test(line)) {
        warnings.push(warning(file, i + first, "ledger-torn-line", "incomplete last line skipped (an interrupted write, or one still in progress)"));
      } else if (CONFLICT_MARKER.test(line)) {
        // The lines on both sides of a conflict are whole events, and both are read: only the marker is noise.
        warnings.push(warning(file, i + first, "ledger-conflict-marker", "line skipped: a git merge conflict marker; the events on both sides of it are kept (the ledger is a union of lines) — delete the marker lines, and add `knowledge/.ledger/*.jsonl merge=union` to .gitattributes (cairn init does) so merges never leave them"));
      } else {
        const reason = (cause as Error).message;
        warnings.push(warning(file, i + first, "ledger-invalid-line", `line skipped: not valid JSON (${reason}); expected one JSON event per line`));
      }
      if (value === undefined) continue;
    }
    const problem = checkEvent(value);
    if (problem === undefined && (value as LedgerEvent).time > (latest ??= latestEventTime())) {
      // A confirmation dated 2099 would come after every later injection, and the entry would never decay.
      warnings.push(warning(file, i + first, "ledger-invalid-line", `line skipped: dated ${(value as LedgerEvent).time}, more than a day after this machine's clock (${new Date(Date.parse(latest) - CLOCK_SKEW_MS).toISOString().slice(0, 16).replace("T", " ")} UTC); an event cannot have happened yet (a machine whose clock was ahead, or a forged line)`, aheadRun(value as LedgerEvent)));
    } else if (problem === undefined) {
      events.push(value as LedgerEvent);
      numbers.push(i + first);
    } else {
      const rule = problem.kind === "version" ? "ledger-unknown-version" : "ledger-invalid-line";
      warnings.push(warning(file, i + first, rule, `line skipped: ${problem.message}`));
    }
  }
  return { file, events, lines: numbers, warnings };
}


/**
 * Merge parsed files (pass them in file-name order): sort by time then eventId (stable, so
 * file order breaks full ties), then drop repeated eventIds, which are now adjacent: identical
 * lines after a git union merge are dropped silently; a different event reusing an id keeps
 * the first and warns. Sorting first avoids hashing every id: a copy of an event has its time
 * and id, so it sorts right beside it. (Two lines sharing an id but not a time, which only a
 * hand edit can produce, stay two events.)
 */
export function mergeLedgerFiles(files: readonly ParsedLedgerFile[]): LedgerReadResult {
  const warnings: LedgerWarning[] = [];
  let all: LedgerEvent[] = [];
  const origin: ParsedLedgerFile[] = [];
  for (const parsed of files) {
    for (const w of parsed.warnings) warnings.push(w);
    if (parsed.events.length > 0) origin.push(parsed);
  }
  // Copy before sorting in place: the parsed files may be cached by the caller.
  if (origin.length === 1) all = (origin[0] as ParsedLedgerFile).events.slice();
  else for (const parsed of origin) for (const event of parsed.events) all.push(event);
  all.sort(compareEvents);
  const events: LedgerEvent[] = [];
  let previous: LedgerEvent | undefined;
  for (const event of all) {
    if (previous !== undefined && previous.eventId === event.eventId) {
      if (JSON.stringify(previous) !== JSON.stringify(event)) {
        const { file, line } = locate(origin, event);
        warnings.push(warning(file, line, "ledger-duplicate-id", `event ${event.eventId} appears with different contents; the first occurrence is kept`));
      }
      continue;
    }
    events.push(event);
    previous = event;
  }
  return { events, warnings };
}

/** File and line of an event (only used for the rare duplicate-id warning). */
function locate(files: readonly ParsedLedgerFile[], event: LedgerEvent): { file: string; line: number } {
  for (const parsed of files) {
    const index = parsed.events.indexOf(event);
    if (index >= 0) return { file: parsed.file, line: parsed.lines[index] ?? 1 };
  }
  return { file: "", line: 1 };
}

/** The `*.jsonl` file names in `ledgerDir` (regular, not hidden), sorted; empty when the directory does not exist. */
export async function listLedgerFiles(ledgerDir: string): Promise<string[]> {
  try {
    const dirents = await readdir(ledgerDir, { withFileTypes: true });
    return dirents
      // Regular `*.jsonl` files that are not hidden: the files `cairn diff` counts in a pull request (a hidden
      // `.x.jsonl` was read here but never shown in the PR comment, so its events changed decay unreviewed).
      .filter((d) => d.isFile() && d.name.endsWith(".jsonl") && !d.name.startsWith("."))
      .map((d) => d.name)
      .sort();
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw new CairnError("IO", `Cannot list the ledger directory ${ledgerDir}: ${(cause as Error).message}`, { cause });
  }
}

/** Label for warnings about `name` in `ledgerDir`: forward slashes, relative when asked. */
export function ledgerFileLabel(ledgerDir: string, name: string, options: ReadLedgerOptions = {}): string {
  const full = path.join(ledgerDir, name);
  const label = options.relativeTo === undefined ? full : path.relative(options.relativeTo, path.resolve(full));
  return label.split(path.sep).join("/");
}

/** Read one ledger file; a file that vanished between listing and reading counts as empty. */
export async function readLedgerFile(file: string, label: string): Promise<ParsedLedgerFile> {
  let text: string;
  try {
    // One-shot decode of the whole buffer: faster than readFile's chunked string decoder.
    text = (await readFile(file)).toString("utf8");
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === "ENOENT") return { file: label, events: [], lines: [], warnings: [] };
    throw new CairnError("IO", `Cannot read ledger file ${file}: ${(cause as Error).message}`, { cause });
  }
  return parseLedgerText(text, label);
}

/**
 * Containment of a ledger read: the directory must not be reached through a link leaving `root`.
 * Ledger files that are links themselves are never read (`listLedgerFiles` keeps regular files only).
 */
export async function assertLedgerContained(ledgerDir: string, options: ReadLedgerOptions): Promise<void> {
  if (options.root !== undefined) await assertContained(options.root, ledgerDir, "read the ledger");
}

/** Read every `*.jsonl` file in `ledgerDir`. A missing directory is an empty ledger. Never fails on bad lines. */
export async function readLedger(ledgerDir: string, options: ReadLedgerOptions = {}): Promise<LedgerReadResult> {
  await assertLedgerContained(ledgerDir, options);
  const names = await listLedgerFiles(ledgerDir);
  const parsed = await Promise.all(
    names.map((name) => readLedgerFile(path.join(ledgerDir, name), ledgerFileLabel(ledgerDir, name, options))),
  );
  return mergeLedgerFiles(parsed);
}
