/**
 * The part of a ledger file a folded state has not seen yet. A state covers, per file, a prefix of
 * whole lines (`Coverage`); the file is only appended to, so the next read parses the bytes after
 * that prefix. Whether the prefix is still there is judged as git judges its index: the file's
 * identity (device, inode) and, when it grew, a hash of the last bytes before the offset. A file
 * replaced (git checkout, merge, rebase, an editor's atomic save), shrunk, or rewritten at the same
 * size is not trusted: the caller re-reads the whole ledger.
 */
import { createHash } from "node:crypto";
import { constants } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { CairnError } from "../errors.js";
import type { LedgerEvent } from "./events.js";
import { parseLedgerText } from "./read.js";

/** Bytes before the covered offset that must be unchanged when a file grew. */
export const WINDOW_BYTES = 4096;

/** A warning as kept with a coverage: the file is the one the coverage is about. */
export type StoredWarning = { line: number; rule: string; message: string; aheadRun?: string };

/** Identity and size of a ledger file (bigint stat values as decimal strings). */
export type FileStat = { dev: string; ino: string; mtimeNs: string; size: number };

/** How much of one ledger file a state has folded, and how to tell the file still starts with it. */
export type Coverage = FileStat & {
  name: string;
  /** Bytes folded: whole lines, plus a last line without "\n" when it held an event (`open`). */
  offset: number;
  /** Newlines in the folded bytes: the next tail starts at line `lines + 1`. */
  lines: number;
  /** sha256 (first 16 hex) of the last WINDOW_BYTES folded bytes. */
  window: string;
  /** The folded bytes end without "\n": the next append glues onto that line, so any growth means a re-read. */
  open: boolean;
  /** Warnings about the folded lines. */
  warnings: StoredWarning[];
  /** Warnings about the bytes after `offset` (a torn last line), valid while the file is unchanged. */
  pending: StoredWarning[];
};

/** What reading a file takes, given its coverage: nothing, a tail from `offset`, or a re-read of everything. */
export type FilePlan = { kind: "unchanged" } | { kind: "tail"; offset: number; lines: number; window?: string } | { kind: "stale" };

export function planFile(coverage: Coverage | undefined, stat: FileStat): FilePlan {
  if (coverage === undefined) return { kind: "tail", offset: 0, lines: 0 };
  if (coverage.dev !== stat.dev || coverage.ino !== stat.ino) return { kind: "stale" };
  if (stat.size === coverage.size) return stat.mtimeNs === coverage.mtimeNs ? { kind: "unchanged" } : { kind: "stale" };
  if (stat.size < coverage.size || coverage.open) return { kind: "stale" };
  return { kind: "tail", offset: coverage.offset, lines: coverage.lines, window: coverage.window };
}

/** An open ledger file and its stat, taken from the handle (so both are about the same file). */
export type OpenedFile = { name: string; handle: FileHandle; stat: FileStat };

/** Open `file` for reading, never through a link; undefined when it vanished since it was listed. */
export async function openLedgerFile(file: string, name: string): Promise<OpenedFile | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    // Gone, or swapped for a link since it was listed as a regular file: not a ledger file now.
    if (code === "ENOENT" || code === "ELOOP") return undefined;
    throw new CairnError("IO", `Cannot read ledger file ${file}: ${(cause as Error).message}`, { cause });
  }
  const s = await handle.stat({ bigint: true });
  return { name, handle, stat: { dev: String(s.dev), ino: String(s.ino), mtimeNs: String(s.mtimeNs), size: Number(s.size) } };
}

/** sha256 (first 16 hex) of `bytes`. */
export function windowHash(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex").slice(0, 16);
}

/** What a tail holds: the events to fold and how far they reach. */
export type ParsedTail = {
  events: LedgerEvent[];
  /** Line number of each event, parallel to `events`. */
  lines: number[];
  warnings: StoredWarning[];
  pending: StoredWarning[];
  /** The coverage after folding this tail. */
  coverage: Coverage;
};

/**
 * Read and parse `file` after its plan's offset up to the size it had when opened (bytes appended
 * since are left for the next read). Undefined when the bytes before the offset changed.
 */
export async function readTail(file: OpenedFile, plan: Extract<FilePlan, { kind: "tail" }>): Promise<ParsedTail | undefined> {
  const from = Math.max(0, plan.offset - WINDOW_BYTES);
  const bytes = Buffer.alloc(file.stat.size - from);
  let read = 0;
  while (read < bytes.length) {
    const { bytesRead } = await file.handle.read(bytes, read, bytes.length - read, from + read);
    if (bytesRead === 0) break; // truncated while reading: the window or the next read tells
    read += bytesRead;
  }
  const data = bytes.subarray(0, read);
  if (plan.window !== undefined && (read < plan.offset - from || windowHash(data.subarray(0, plan.offset - from)) !== plan.window)) return undefined;
  return parseTail(file, data, from, plan);
}

function parseTail(file: OpenedFile, data: Buffer, from: number, plan: Extract<FilePlan, { kind: "tail" }>): ParsedTail {
  const tail = data.subarray(plan.offset - from);
  const atStart = plan.offset === 0;
  // Whole lines first: they are folded and covered.
  const whole = tail.lastIndexOf(0x0a) + 1;
  let newlines = 0;
  for (let at = tail.indexOf(0x0a); at >= 0 && at < whole; at = tail.indexOf(0x0a, at + 1)) newlines += 1;
  const head = parseLedgerText(tail.toString("utf8", 0, whole), file.name, { firstLine: plan.lines + 1, atStart });
  const warnings = head.warnings.map(stored);
  let { events, lines } = head;
  let covered = whole;
  let open = false;
  let pending: StoredWarning[] = [];
  if (whole < tail.length) {
    // A last line without "\n": torn (not folded, not covered: re-read next time, with its warning),
    // unless it holds an event, as a reader of the whole file would count it. Then it is folded and
    // covered, and the file is re-read whole as soon as it grows (the next append glues onto it).
    const rest = parseLedgerText(tail.toString("utf8", whole), file.name, { firstLine: plan.lines + 1 + newlines, atStart: atStart && whole === 0 });
    if (rest.events.length > 0) {
      events = [...events, ...rest.events];
      lines = [...lines, ...rest.lines];
      warnings.push(...rest.warnings.map(stored));
      covered = tail.length;
      open = true;
    } else pending = rest.warnings.map(stored);
  }
  const offset = plan.offset + covered;
  const windowStart = Math.max(0, offset - WINDOW_BYTES) - from;
  return {
    events,
    lines,
    warnings,
    pending,
    coverage: { name: file.name, ...file.stat, size: from + data.length, offset, lines: plan.lines + newlines, window: windowHash(data.subarray(windowStart, offset - from)), open, warnings: [], pending },
  };
}

function stored(w: { line: number; rule: string; message: string; aheadRun?: string }): StoredWarning {
  return { line: w.line, rule: w.rule, message: w.message, ...(w.aheadRun !== undefined ? { aheadRun: w.aheadRun } : {}) };
}
