/** CLI output: exit codes decided in one place, diagnostics formats, tables. */
import type { Diagnostic } from "../entry/diagnostic.js";
import { isCairnError, type CairnErrorCode } from "../errors.js";
import { CONTROL_CHARS, HIDDEN_CHARS } from "../text/invisible.js";
import { toSarif } from "./sarif.js";

export const EXIT = { ok: 0, failed: 1, usage: 2, runtime: 3 } as const;

export type Io = {
  out: (text: string) => void;
  err: (text: string) => void;
  /** True when stderr is a terminal (progress bars, colours). */
  tty: boolean;
  /** Write to stderr as is, no newline added (a progress bar redrawing its line). Default: process.stderr. */
  rawErr?: (text: string) => void;
  /** stdout is a terminal and NO_COLOR is unset: marks may be coloured. Default: false. */
  color?: boolean;
  /** The directory relative file arguments resolve against. Default: process.cwd(). */
  cwd?: string;
  /** All of standard input ('-' as a file argument): its bytes, or text already decoded. Default: this process's stdin. */
  stdin?: () => Promise<string | Buffer>;
};

/** Streams whose reader went away (EPIPE): nothing more is written to them. */
const closed = new Set<NodeJS.WritableStream>();

function write(stream: NodeJS.WriteStream, text: string): void {
  if (closed.has(stream)) return;
  stream.write(text.endsWith("\n") ? text : `${text}\n`);
}

export const processIo: Io = {
  out: (text) => write(process.stdout, text),
  err: (text) => write(process.stderr, text),
  tty: Boolean(process.stderr.isTTY),
  rawErr: (text) => void (closed.has(process.stderr) || process.stderr.write(text)),
  color: Boolean(process.stdout.isTTY) && !process.env.NO_COLOR,
};

/**
 * A reader that stops early (`cairn status | head -1`) closes the pipe: stop writing to it and
 * finish quietly with the command's own exit code, instead of dying with an EPIPE stack trace.
 */
export function handleClosedOutput(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (error: NodeJS.ErrnoException) => {
      closed.add(stream);
      if (error.code !== "EPIPE") process.exitCode = EXIT.runtime;
    });
  }
}

export function json(io: Io, value: unknown): void {
  io.out(JSON.stringify(value, null, 2));
}

const CODE_EXIT: Record<CairnErrorCode, number> = {
  USAGE: EXIT.usage,
  CONFIG: EXIT.usage,
  NOT_FOUND: EXIT.failed,
  CONFLICT: EXIT.failed,
  INVALID: EXIT.failed,
  IO: EXIT.runtime,
  LOCKED: EXIT.runtime,
  UNSAFE_PATH: EXIT.usage,
};

/** Map any thrown value to a message and an exit code; never prints a stack unless CAIRN_DEBUG is set. */
export function reportError(io: Io, error: unknown): number {
  if (isCairnError(error)) {
    io.err(`cairn: ${error.message}`);
    if (process.env.CAIRN_DEBUG && error.cause) io.err(String((error.cause as Error).stack ?? error.cause));
    return CODE_EXIT[error.code];
  }
  const message = error instanceof Error ? error.message : String(error);
  // With CAIRN_DEBUG set, the stack follows: telling the user to set it would send them in a circle.
  const debug = Boolean(process.env.CAIRN_DEBUG);
  io.err(`cairn: unexpected error: ${message}\n(${debug ? "please report it with the stack below" : "set CAIRN_DEBUG=1 for details; please report it"})`);
  if (debug && error instanceof Error) io.err(error.stack ?? "");
  return EXIT.runtime;
}

export type DiagnosticFormat = "human" | "json" | "github" | "sarif";

export function formatDiagnostics(list: Diagnostic[], format: DiagnosticFormat, summary: { errors: number; warnings: number; files?: number }): string {
  if (format === "json") return JSON.stringify({ diagnostics: list, errors: summary.errors, warnings: summary.warnings }, null, 2);
  if (format === "sarif") return JSON.stringify(toSarif(list), null, 2);
  if (format === "github") {
    return list
      .map((d) => `::${d.severity} file=${escapeProperty(d.file)},line=${d.line},col=${d.column},title=${escapeProperty(`cairn ${d.rule}`)}::${escapeData(d.message)}`)
      .join("\n");
  }
  // A message may quote the entry (a key, an anchor, a title): one line each, nothing a terminal would obey.
  const lines = list.map((d) => terminalText(`${d.file}:${d.line}:${d.column} ${d.severity} ${d.rule} ${d.message}`));
  const files = summary.files !== undefined ? ` in ${summary.files} file${summary.files === 1 ? "" : "s"}` : "";
  lines.push(`${summary.errors} error${summary.errors === 1 ? "" : "s"}, ${summary.warnings} warning${summary.warnings === 1 ? "" : "s"}${files}`);
  return lines.join("\n");
}

function escapeData(s: string): string {
  return s.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}
function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

/** A plain text table with left-aligned columns. */
export function table(headers: string[], rows: string[][]): string {
  // Cells hold what entries, ledgers and commits say (a hostile change writes those): shown, never obeyed. Every
  // column but the last pads each row to its widest cell, so one is cut to MAX_CELL: a 200 KB `status:` in one entry
  // would otherwise pad every row of `status` (51 entries printed 31.8 MB; 10k entries, gigabytes).
  rows = rows.map((row) => row.map((cell, i) => (i === row.length - 1 ? terminalText(cell ?? "") : clip(terminalText(cell ?? ""), i === 0 ? MAX_FIRST_CELL : MAX_CELL))));
  // Plain loops: `status` prints a row per entry (10k rows: beyond the spelled-out copy above, no array per row or
  // column on the way).
  const widths = headers.map((h) => h.length);
  for (const row of rows) {
    for (let i = 0; i < widths.length; i++) widths[i] = Math.max(widths[i]!, (row[i] ?? "").length);
  }
  const line = (cells: string[]): string => {
    let out = "";
    for (let i = 0; i < cells.length; i++) out += i === cells.length - 1 ? cells[i] : `${cells[i]!.padEnd(widths[i]!)}  `;
    return out.trimEnd();
  };
  // The last column is not padded: its rule is as wide as its header, not as its widest (uncut) cell.
  const last = widths.length - 1;
  let out = `${line(headers)}\n${line(widths.map((w, i) => "-".repeat(i === last ? headers[i]!.length : w)))}`;
  for (const row of rows) out += `\n${line(row)}`;
  return out;
}

/** The widest a padded table cell gets; `--json` has every value in full. */
export const MAX_CELL = 120;
/** The first column's (the id in status, search and review): an id (a file name, or an `id:` key) whole up to 255 characters. */
export const MAX_FIRST_CELL = 255;

/** `text` cut to at most `max` characters, the cut marked with "…" (never inside a surrogate pair). */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}…`;
}

/**
 * Characters a terminal acts on instead of showing: C0 and C1 controls (escape sequences that recolour, move the
 * cursor, set the title or the clipboard; carriage returns that overwrite a line) and the invisible characters that
 * reorder text or hide it between words (bidi controls, zero-width spaces, the soft hyphen: src/text/invisible.ts, the
 * set a prompt drops). Text from entries, ledger events or commits is written to a terminal with these spelled out
 * (`\x1b`, `\u202e`).
 */
const TERMINAL_UNSAFE = new RegExp(`[${CONTROL_CHARS}${HIDDEN_CHARS}]`, "gu");

/**
 * `text` with every character a terminal would act on spelled out as an escape (see TERMINAL_UNSAFE). `lines`: a
 * multi-line text (an entry file as `show` prints it) keeps its line breaks (`\n`, `\r\n`) and tabs.
 */
export function terminalText(text: string, options: { lines?: boolean } = {}): string {
  TERMINAL_UNSAFE.lastIndex = 0;
  if (!TERMINAL_UNSAFE.test(text)) return text;
  return text.replace(TERMINAL_UNSAFE, (c, at: number) => {
    if (options.lines && (c === "\n" || c === "\t" || (c === "\r" && text[at + 1] === "\n"))) return c;
    if (inEmoji(text, at, c)) return c;
    const code = c.codePointAt(0)!;
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : code <= 0xffff ? `\\u${code.toString(16).padStart(4, "0")}` : `\\u{${code.toString(16)}}`;
  });
}

const PICTOGRAPH = /\p{Extended_Pictographic}/u;

/**
 * The joiners and presentation selectors an emoji is made of (`⚠️`, `👨‍💻`), which a terminal draws as the emoji: a
 * presentation selector right after a pictograph, a zero-width joiner between two (a selector may sit before it).
 */
function inEmoji(text: string, at: number, c: string): boolean {
  if (c !== "\ufe0e" && c !== "\ufe0f" && c !== "\u200d") return false;
  const before = text.slice(Math.max(0, at - 2), at);
  const previous = before.endsWith("\ufe0f") ? text.slice(Math.max(0, at - 3), at - 1) : before;
  const pictographBefore = PICTOGRAPH.test([...previous].pop() ?? "");
  if (c !== "\u200d") return pictographBefore;
  return pictographBefore && PICTOGRAPH.test(String.fromCodePoint(text.codePointAt(at + 1) ?? 0));
}

/** Split `a,b` and repeated flags into a clean list. */
export function list(values: string | string[] | undefined): string[] {
  const raw = values === undefined ? [] : Array.isArray(values) ? values : [values];
  return raw.flatMap((v) => v.split(",")).map((v) => v.trim()).filter(Boolean);
}
