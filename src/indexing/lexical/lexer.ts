/** Lexing of one region into words, numbers, operators and punctuation; identifier splitting. */
import { ownString } from "../../text/own.js";

export type LexemeKind = "word" | "path" | "number" | "op" | "punct";
export type Lexeme = { kind: LexemeKind; text: string; start: number; end: number };

/** Multi-character operators first so that the lexer prefers `..=` over `..` and `::` over `:`. */
const OPERATORS = [
  "..=", "...", "<<=", ">>=", "#![", "::", "->", "=>", "==", "!=", "<=", ">=", "&&", "||", "..",
  "+=", "-=", "*=", "/=", "%=", "^=", "&=", "|=", "<<", ">>", "#[",
];

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
const W = String.raw`\p{L}\p{M}\p{N}_$`;
const WORD = `[${W}]+`;
/** `kebab-case` words (prose only: in code `a-b` is a subtraction). */
const KEBAB = String.raw`\p{L}[${W}]*(?:-[${W}]+)+`;
/** A path segment may hold dots and hyphens inside, never at its ends. */
const SEGMENT = `[${W}](?:[${W}.-]*[${W}])?`;
/** `src/a.ts`, `./x/y`, `/etc/z`: at least two segments joined by `/`. */
const PATH = String.raw`(?:\.{1,2}/|/)?${SEGMENT}(?:/${SEGMENT})+`;
/** `3.14`, `1.2.3` (not `x.0`: a number must not touch a letter). */
const DECIMAL = String.raw`\p{N}+(?:\.\p{N}+)+(?![\p{L}\p{N}_])`;
const OPS = OPERATORS.map(escape).join("|");
const PUNCT = String.raw`[^\s${W}]`;
const CODE_LEXEME = new RegExp(`(${PATH})|(${DECIMAL})|(${WORD})|(${OPS})|(${PUNCT})`, "gu");
const PROSE_LEXEME = new RegExp(`(${PATH})|(${DECIMAL})|(${KEBAB}|${WORD})|(${OPS})|(${PUNCT})`, "gu");

/** Lex one region; `code` turns kebab-case joining off. */
export function lex(text: string, code: boolean): Lexeme[] {
  const out: Lexeme[] = [];
  for (const m of text.matchAll(code ? CODE_LEXEME : PROSE_LEXEME)) {
    const kind: LexemeKind = m[1] ? "path" : m[2] ? "number" : m[3] ? "word" : m[4] ? "op" : "punct";
    out.push({ kind, text: m[0], start: m.index, end: m.index + m[0].length });
  }
  return out;
}

/** The words inside a path, in order (`src/search-index.ts` → `src`, `search-index`, `ts`). */
export function pathWords(path: string): string[] {
  return path.match(PATH_WORD) ?? [];
}
const PATH_WORD = new RegExp(`${KEBAB}|${WORD}`, "gu");

export type SplitIdentifier = {
  /** Lowercased segments joined by `_`: `sortBy` and `sort_by` both give `sort_by`. */
  whole: string;
  /** Lowercased pieces between `_`, `$`, `-` and case changes: `HTTPServer2` → `http`, `server2`. */
  segments: readonly string[];
  /**
   * Segments split where a number meets a letter (`1u32` → `1`, `u32`), then where a letter
   * meets a number (`u32` → `u`, `32`), each piece once and in order.
   */
  parts: readonly string[];
};

const DIGIT_THEN_LETTER = /(?<=\p{N})(?=\p{L})/u;
const LETTER_THEN_DIGIT = /(?<=\p{L})(?=\p{N})/u;

/** Splits of the words seen lately: a knowledge base repeats its words, and the split was a tenth of indexing time. */
const splits = new Map<string, Readonly<SplitIdentifier>>();

/** Split an identifier at `_`, `$`, `-`, camelCase and letter/digit boundaries (the result is shared: never change it). */
export function splitIdentifier(word: string): Readonly<SplitIdentifier> {
  let split = splits.get(word);
  if (split) return split;
  // Kept: the word and its pieces as strings of their own, not views of the text they were lexed from.
  const own = ownString(word);
  split = splitAnew(own);
  if (splits.size >= 50_000) splits.clear();
  splits.set(own, split);
  return split;
}

function splitAnew(word: string): Readonly<SplitIdentifier> {
  const segments = word
    .split(/[_$-]+/)
    .flatMap((s) => s.split(/(?<=[\p{Ll}\p{N}])(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})/u))
    .filter((s) => s !== "")
    .map((s) => s.toLowerCase());
  const parts: string[] = [];
  for (const segment of segments) {
    for (const piece of segment.split(DIGIT_THEN_LETTER)) {
      const sub = piece.split(LETTER_THEN_DIGIT);
      if (sub.length === 1 || segments.length > 1 || segment !== piece) parts.push(piece);
      if (sub.length > 1) parts.push(...sub);
    }
  }
  return Object.freeze({ whole: segments.join("_"), segments: Object.freeze(segments), parts: Object.freeze(parts) });
}
