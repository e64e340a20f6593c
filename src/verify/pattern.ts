/**
 * Search patterns from entries, compiled for RE2 (re2js: linear-time matching, no catastrophic
 * backtracking — patterns come from untrusted entries). `basic` follows grep's default syntax
 * (`|`, `+`, `?`, `(`, `{` are literal; `\|`, `\+`, `\?`, `\(`, `\{` are operators), so an entry
 * written for `grep` means what its author meant: `stat.*|| echo 0` is a literal `||`.
 */
import { RE2JS } from "re2js";

export type PatternSyntax = "basic" | "extended" | "fixed";

export type CompiledPattern = {
  /** The pattern as written in the entry. */
  source: string;
  syntax: PatternSyntax;
  /** A literal every match contains (a cheap pre-filter), or "" when there is none. */
  literal: string;
  ignoreCase: boolean;
  /** True when some line of `text` matches. */
  test(text: string): boolean;
  /** 1-based numbers of matching lines, at most `limit`. */
  lines(text: string, limit: number): number[];
};

/** Longest pattern accepted from an entry. */
export const MAX_PATTERN_LENGTH = 500;

export type CompileResult = { value: CompiledPattern } | { problem: string };

export function compilePattern(source: string, syntax: PatternSyntax, ignoreCase = false): CompileResult {
  if (!source) return { problem: "the pattern is empty" };
  if (source.length > MAX_PATTERN_LENGTH) return { problem: `the pattern is longer than ${MAX_PATTERN_LENGTH} characters` };
  const translated = syntax === "fixed" ? { regex: RE2JS.quote(source), literal: source, pure: true } : translate(source, syntax);
  if ("problem" in translated) return translated;
  // A pattern that is one literal (most are: `retry(`, `ctx.Err()` in grep's basic syntax) matches a line exactly when the
  // line contains it: no regex engine needed, to compile or to run.
  if (translated.pure && !ignoreCase && !translated.literal.includes("\n")) return { value: literalPattern(source, syntax, translated.literal) };
  let re: RE2JS;
  try {
    re = RE2JS.compile(translated.regex, RE2JS.MULTILINE | (ignoreCase ? RE2JS.CASE_INSENSITIVE : 0));
  } catch (cause) {
    return { problem: `the pattern is not a valid regular expression for RE2 (${(cause as Error).message})` };
  }
  const literal = ignoreCase ? "" : translated.literal;
  const lineMatches = (line: string): boolean => (!literal || line.includes(literal)) && re.test(line);
  return {
    value: {
      source,
      syntax,
      literal,
      ignoreCase,
      test(text) {
        if (literal && !text.includes(literal)) return false;
        // Whole-text test first (fast); then confirm line by line, since `[^x]` and `\s` may cross lines in RE2.
        if (!re.test(text)) return false;
        return text.split("\n").some(lineMatches);
      },
      lines(text, limit) {
        const out: number[] = [];
        const lines = text.split("\n");
        for (let i = 0; i < lines.length && out.length < limit; i++) if (lineMatches(lines[i]!)) out.push(i + 1);
        return out;
      },
    },
  };
}

/** A pattern that is a single literal: `test` and `lines` are substring searches. */
function literalPattern(source: string, syntax: PatternSyntax, literal: string): CompiledPattern {
  return {
    source,
    syntax,
    literal,
    ignoreCase: false,
    test: (text) => text.includes(literal),
    lines(text, limit) {
      const out: number[] = [];
      const lines = text.split("\n");
      for (let i = 0; i < lines.length && out.length < limit; i++) if (lines[i]!.includes(literal)) out.push(i + 1);
      return out;
    },
  };
}

const RE2_META = new Set([..."\\.+*?()|[]{}^$"]);

/** grep syntax → RE2 syntax, plus the longest literal run outside quantifiers and alternation; `pure` when the whole pattern is that literal. */
function translate(source: string, syntax: "basic" | "extended"): { regex: string; literal: string; pure: boolean } | { problem: string } {
  const basic = syntax === "basic";
  let out = "";
  let literal = "";
  let best = "";
  let alternation = false;
  let depth = 0;
  const flush = (): void => {
    if (depth === 0 && literal.length > best.length) best = literal;
    literal = "";
  };
  const lit = (ch: string): void => {
    out += RE2_META.has(ch) ? `\\${ch}` : ch;
    literal += ch;
  };
  const quantified = (): void => {
    // The last literal character is optional or repeated: it cannot be required.
    literal = literal.slice(0, -1);
    flush();
  };
  const atStart = (): boolean => out === "" || out.endsWith("(") || out.endsWith("|") || out === "^";
  for (let i = 0; i < source.length; i++) {
    const ch = source[i]!;
    if (ch === "\\") {
      const next = source[i + 1];
      i++;
      if (next === undefined) return { problem: "the pattern ends with a lone backslash" };
      if (/[1-9]/.test(next)) return { problem: "back-references (\\1) are not supported by a linear-time matcher" };
      if (next === "<" || next === ">") {
        flush();
        out += "\\b";
      } else if ("wWsSbB".includes(next)) {
        flush();
        out += `\\${next}`;
      } else if (basic && "+?|(){}".includes(next)) {
        ({ out, depth, alternation } = operator(next, out, depth, alternation, source, i));
        if (next === "+" || next === "?" || next === "{") quantified();
        else flush();
        if (next === "{") i = source.indexOf("\\}", i) + 1 || source.length;
      } else lit(next);
      continue;
    }
    if (!basic && "+?|(){}".includes(ch)) {
      ({ out, depth, alternation } = operator(ch, out, depth, alternation, source, i));
      if (ch === "+" || ch === "?" || ch === "{") quantified();
      else flush();
      if (ch === "{") i = source.indexOf("}", i) || source.length;
      continue;
    }
    if (ch === "*") {
      if (atStart()) lit("*");
      else {
        out += "*";
        quantified();
      }
      continue;
    }
    if (ch === ".") {
      flush();
      out += ".";
      continue;
    }
    if (ch === "^" && atStart()) {
      out += "^";
      continue;
    }
    if (ch === "$" && (i === source.length - 1 || (basic ? source.startsWith("\\)", i + 1) || source.startsWith("\\|", i + 1) : /[|)]/.test(source[i + 1]!)))) {
      flush();
      out += "$";
      continue;
    }
    if (ch === "[") {
      const bracket = readBracket(source, i);
      if (!bracket) return { problem: "an unclosed `[` in the pattern" };
      flush();
      out += bracket.regex;
      i = bracket.end;
      continue;
    }
    lit(ch);
  }
  flush();
  if (depth !== 0) return { problem: "unbalanced parentheses in the pattern" };
  const required = alternation ? "" : best;
  // Pure: the regex is nothing but that literal, escaped (no anchor, class, quantifier, group or alternation).
  return { regex: out, literal: required, pure: required !== "" && out === [...required].map((ch) => (RE2_META.has(ch) ? `\\${ch}` : ch)).join("") };
}

function operator(op: string, out: string, depth: number, alternation: boolean, source: string, i: number): { out: string; depth: number; alternation: boolean } {
  switch (op) {
    case "(":
      return { out: `${out}(?:`, depth: depth + 1, alternation };
    case ")":
      return { out: `${out})`, depth: Math.max(0, depth - 1), alternation };
    case "|":
      return { out: `${out}|`, depth, alternation: alternation || depth === 0 };
    case "{": {
      const close = source.indexOf(source[i - 1] === "\\" ? "\\}" : "}", i);
      const body = close === -1 ? "" : source.slice(i + 1, close);
      return /^\d*(?:,\d*)?$/.test(body) && body !== "" ? { out: `${out}{${body}}`, depth, alternation } : { out: `${out}\\{`, depth, alternation };
    }
    default:
      return { out: out + op, depth, alternation };
  }
}

/** A POSIX bracket expression: `]` first is literal, backslash is literal, classes like `[:alpha:]` kept; negation never matches a newline. */
function readBracket(source: string, start: number): { regex: string; end: number } | undefined {
  let i = start + 1;
  let body = "";
  let negate = false;
  if (source[i] === "^") {
    negate = true;
    i++;
  }
  if (source[i] === "]") {
    body += "\\]";
    i++;
  }
  for (; i < source.length; i++) {
    const ch = source[i]!;
    if (ch === "]") return { regex: `[${negate ? "^\\n" : ""}${body}]`, end: i };
    if (ch === "[" && source[i + 1] === ":") {
      const close = source.indexOf(":]", i + 2);
      if (close === -1) return undefined;
      body += source.slice(i, close + 2);
      i = close + 1;
      continue;
    }
    body += ch === "\\" ? "\\\\" : ch === "[" ? "\\[" : ch;
  }
  return undefined;
}
