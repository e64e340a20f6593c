/** Lexing of one region into words, numbers, operators and punctuation; identifier splitting. */

export type LexemeKind = "word" | "number" | "op" | "punct";
export type Lexeme = { kind: LexemeKind; text: string; start: number; end: number };

/** Multi-character operators first so that the lexer prefers `..=` over `..` and `::` over `:`. */
const OPERATORS = [
  "..=", "...", "<<=", ">>=", "#![", "::", "->", "=>", "==", "!=", "<=", ">=", "&&", "||", "..",
  "+=", "-=", "*=", "/=", "%=", "^=", "&=", "|=", "<<", ">>", "#[",
];

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
const WORD = String.raw`[\p{L}\p{M}\p{N}_$]+`;
const DECIMAL = String.raw`\p{N}+\.\p{N}+(?![\p{L}\p{N}_])`;
const LEXEME = new RegExp(
  `(${DECIMAL})|(${WORD})|(${OPERATORS.map(escape).join("|")})|([^\\s\\p{L}\\p{M}\\p{N}_$])`,
  "gu",
);

export function lex(text: string): Lexeme[] {
  const out: Lexeme[] = [];
  for (const m of text.matchAll(LEXEME)) {
    const kind: LexemeKind = m[1] ? "number" : m[2] ? "word" : m[3] ? "op" : "punct";
    out.push({ kind, text: m[0], start: m.index, end: m.index + m[0].length });
  }
  return out;
}

export type SplitIdentifier = {
  /** Lowercased segments joined by `_`: `sortBy` and `sort_by` both give `sort_by`. */
  whole: string;
  /** Lowercased pieces between `_`, `$` and case changes: `HTTPServer2` → `http`, `server2`. */
  segments: string[];
  /** Segments further split at letter/digit boundaries: `server2` → `server`, `2`. */
  parts: string[];
};

/** Split an identifier at `_`, `$`, camelCase and letter/digit boundaries. */
export function splitIdentifier(word: string): SplitIdentifier {
  const segments = word
    .split(/[_$]+/)
    .flatMap((s) => s.split(/(?<=[\p{Ll}\p{N}])(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})/u))
    .filter((s) => s !== "")
    .map((s) => s.toLowerCase());
  const parts = segments.flatMap((s) => s.split(/(?<=\p{L})(?=\p{N})|(?<=\p{N})(?=\p{L})/u));
  return { whole: segments.join("_"), segments, parts };
}
