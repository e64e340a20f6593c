/** Where a definition ends: matching braces, indentation (Python) or the next heading (Markdown). */
import type { BlockStyle } from "./languages.js";

/** Longest definition followed, in lines; beyond it the definition is taken to end there. */
const MAX_BLOCK_LINES = 5000;

/** The 0-based last line of the definition starting at `start`. */
export function blockEnd(lines: readonly string[], start: number, style: BlockStyle, options: { level?: number; lifetimes?: boolean } = {}): number {
  switch (style) {
    case "indent":
      return indentEnd(lines, start);
    case "heading":
      return headingEnd(lines, start, options.level ?? 1);
    default:
      return braceEnd(lines, start, style === "shell-braces", options.lifetimes ?? false);
  }
}

/**
 * Brace languages: follow bracket depth (strings and comments removed) until it returns to zero
 * at the end of a line after a `{` block, or a statement ends in `;` at depth zero. A blank line at
 * depth zero before any bracket ends a declaration written without semicolons.
 */
function braceEnd(lines: readonly string[], start: number, bracesOnly: boolean, lifetimes: boolean): number {
  let depth = 0;
  let block = false;
  let inComment = false;
  let lastCode = start;
  const limit = Math.min(lines.length, start + MAX_BLOCK_LINES);
  for (let l = start; l < limit; l++) {
    const { code, comment } = stripLine(lines[l]!, inComment, lifetimes);
    inComment = comment;
    const trimmed = code.trim();
    if (!trimmed) {
      if (depth <= 0 && l > start && !block) return lastCode;
      continue;
    }
    lastCode = l;
    for (const ch of code) {
      if (ch === "{") {
        if (depth === 0) block = true;
        depth++;
      } else if (ch === "}") depth--;
      else if (!bracesOnly && (ch === "(" || ch === "[")) depth++;
      else if (!bracesOnly && (ch === ")" || ch === "]")) depth--;
    }
    if (depth <= 0 && (block || /[;,]$/.test(trimmed) || (l === start && bracesOnly))) return l;
    if (depth <= 0 && !block && !/[=|&+\-*/.,:?(<>]$/.test(trimmed) && !/^[|&.?:{=]/.test(nextCode(lines, l))) return l;
  }
  return Math.max(start, lastCode);
}

function nextCode(lines: readonly string[], l: number): string {
  for (let n = l + 1; n < lines.length && n < l + 5; n++) {
    const t = lines[n]!.trim();
    if (t) return t;
  }
  return "";
}

/** A line without string literals and comments (so braces inside them do not count); `lifetimes`: Rust's `'a` is not a quote. */
export function stripLine(line: string, inComment: boolean, lifetimes = false): { code: string; comment: boolean } {
  let out = "";
  let i = 0;
  let comment = inComment;
  while (i < line.length) {
    if (comment) {
      const close = line.indexOf("*/", i);
      if (close === -1) return { code: out, comment: true };
      comment = false;
      i = close + 2;
      continue;
    }
    const ch = line[i]!;
    const next = line[i + 1];
    if (ch === "/" && next === "/") break;
    if (ch === "#" && (i === 0 || /\s/.test(line[i - 1]!)) && !/^#[!\[]/.test(line.slice(i))) {
      // A shell or Python comment; `#[derive]` (Rust) and `#!` stay.
      if (!/^#\w+\s*[({]/.test(line.slice(i))) break;
    }
    if (ch === "/" && next === "*") {
      comment = true;
      i += 2;
      continue;
    }
    if (ch === '"' || ch === "`" || (ch === "'" && isQuote(line, i, lifetimes))) {
      const close = closingQuote(line, i + 1, ch);
      if (close === -1) break;
      out += " ";
      i = close + 1;
      continue;
    }
    out += ch;
    i++;
  }
  return { code: out, comment };
}

/** A `'` that opens a string or char literal, not an apostrophe in a word or (Rust) a lifetime `'a`. */
function isQuote(line: string, i: number, lifetimes: boolean): boolean {
  if (i > 0 && /\w/.test(line[i - 1]!)) return false;
  if (lifetimes) return /^'(?:\\.|[^'\\])'/.test(line.slice(i, i + 4));
  return true;
}

function closingQuote(line: string, from: number, quote: string): number {
  for (let i = from; i < line.length; i++) {
    if (line[i] === "\\") i++;
    else if (line[i] === quote) return i;
  }
  return -1;
}

/** Python: the block ends before the first later non-blank line indented no deeper than the definition. */
function indentEnd(lines: readonly string[], start: number): number {
  const indent = indentation(lines[start]!);
  let last = start;
  let depth = bracketDelta(lines[start]!);
  const limit = Math.min(lines.length, start + MAX_BLOCK_LINES);
  for (let l = start + 1; l < limit; l++) {
    const line = lines[l]!;
    if (!line.trim()) continue;
    if (depth <= 0 && indentation(line) <= indent && !/^\s*[)\]}]/.test(line)) break;
    depth += bracketDelta(line);
    last = l;
  }
  return last;
}

function bracketDelta(line: string): number {
  const { code } = stripLine(line, false);
  let d = 0;
  for (const ch of code) {
    if (ch === "(" || ch === "[" || ch === "{") d++;
    else if (ch === ")" || ch === "]" || ch === "}") d--;
  }
  return d;
}

function indentation(line: string): number {
  let n = 0;
  for (const ch of line) {
    if (ch === " ") n++;
    else if (ch === "\t") n += 4;
    else break;
  }
  return n;
}

/** Markdown: a section runs to the next heading of the same or a higher level (outside code fences). */
function headingEnd(lines: readonly string[], start: number, level: number): number {
  let fence = false;
  let last = start;
  for (let l = start + 1; l < lines.length; l++) {
    const line = lines[l]!;
    if (/^ {0,3}(?:```|~~~)/.test(line)) fence = !fence;
    const heading = !fence && /^ {0,3}(#{1,6})[ \t]/.exec(line);
    if (heading && heading[1]!.length <= level) break;
    if (line.trim()) last = l;
  }
  return last;
}
