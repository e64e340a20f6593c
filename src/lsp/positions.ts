/**
 * cairn positions (1-based line and column, columns in UTF-16 code units) to LSP positions
 * (0-based line and character, UTF-16 by default) and back; which anchor a cursor is on.
 * Positions from a stale parse or a hostile client are clamped into the text, never trusted.
 */
import type { Position, Range } from "vscode-languageserver";
import type { Anchor } from "../entry/types.js";

/** The text's lines as the LSP counts them: LF, CRLF and a lone CR each end a line. */
export function splitLines(text: string): string[] {
  return text.split(/\r\n|\r|\n/);
}

/**
 * The range a problem reported at `line`:`column` covers: `length` characters when known (an
 * anchor), else the word there, or the whole line's text when it is reported at column 1.
 */
export function problemRange(lines: readonly string[], line: number, column: number, length?: number): Range {
  const row = clamp(line - 1, 0, Math.max(0, lines.length - 1));
  const text = lines[row] ?? "";
  const start = clamp(column - 1, 0, text.length);
  let end: number;
  if (length !== undefined) end = Math.min(text.length, start + length);
  else if (start === 0) end = text.trimEnd().length;
  else end = wordEnd(text, start);
  if (end <= start) end = Math.min(text.length, start + 1);
  return { start: { line: row, character: start }, end: { line: row, character: Math.max(end, start) } };
}

/** Lines `start`..`end` (1-based, inclusive) of a file with `lines` as an LSP range: from the first line's start to the last line's end. */
export function linesRange(start: number, end: number, lines?: readonly string[]): Range {
  const last = Math.max(start, end);
  return { start: { line: start - 1, character: 0 }, end: { line: last - 1, character: lines?.[last - 1]?.length ?? 0 } };
}

/** The first line of an anchor as written (an anchor's note may run on). */
export function anchorText(anchor: Anchor): string {
  return anchor.raw.split(/\r?\n/)[0] ?? anchor.raw;
}

/** Where an anchor is written in the entry file. */
export function anchorRange(anchor: Anchor): Range {
  const start = { line: anchor.line - 1, character: anchor.column - 1 };
  return { start, end: { line: start.line, character: start.character + anchorText(anchor).length } };
}

/** The anchor under the cursor: on its first line, from its first character to just after its last. */
export function anchorAt(anchors: readonly Anchor[], position: Position): Anchor | undefined {
  return anchors.find((anchor) => {
    const range = anchorRange(anchor);
    return position.line === range.start.line && position.character >= range.start.character && position.character <= range.end.character;
  });
}

/** True for a position a client may send: whole, non-negative numbers. */
export function isPosition(value: unknown): value is Position {
  const p = value as Position | undefined;
  return typeof p === "object" && p !== null && Number.isSafeInteger(p.line) && Number.isSafeInteger(p.character) && p.line >= 0 && p.character >= 0;
}

function wordEnd(text: string, start: number): number {
  let end = start;
  while (end < text.length && !/\s/.test(text[end]!)) end++;
  return end;
}

function clamp(n: number, low: number, high: number): number {
  return Math.min(Math.max(n, low), high);
}
