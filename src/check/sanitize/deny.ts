/**
 * Configured organisation / customer identifiers (`sanitize.denyPatterns`): case-insensitive, Unicode regexes.
 *
 * A pattern with a repetition (`*`, `+`, `?`, `{n,m}`) is matched by RE2 (re2js: linear time). V8's backtracking
 * engine took exponential time on one like `(a|a)+$` (0.9 s at 24 characters of an entry, 15–21 s at 30), and the
 * config arrives in a pull request that CI checks before anyone reads it; the inject gate runs the same rule. A
 * pattern without one (a name, `\bacme\b`, alternatives of names) cannot backtrack beyond its length at each
 * position, and V8 runs it ~75 times faster than re2js, so it stays there.
 */
import { RE2JS } from "re2js";
import { CairnError } from "../../errors.js";
import type { Finding } from "./finding.js";

/** `matches` yields [start, end) of each match in UTF-16 units, zero-length ones included. */
export type DenyPattern = { source: string; matches(text: string): Iterable<[number, number]> };

/**
 * Patterns written in plain ASCII without Unicode-only syntax (`\p{…}`, `\u{…}`) behave the
 * same without the `u` flag for ASCII names, and V8 runs them many times faster (`\b` under
 * `iu` must consider Unicode case folding). Anything else keeps `u`.
 */
function fastFlags(source: string): string {
  return /^[\x20-\x7e]*$/.test(source) && !/\\[pPu]\{|\\u[0-9A-Fa-f]{4}/.test(source) ? "gi" : "giu";
}

/** Compile deny patterns once (case-insensitive, Unicode); an invalid pattern is a configuration error naming its index. */
export function compileDenyPatterns(patterns: readonly string[] = []): DenyPattern[] {
  return patterns.map((source, i) => {
    const invalid = (why: string, cause?: unknown) =>
      new CairnError("CONFIG", `sanitize.denyPatterns.${i} is not a valid regular expression (got ${JSON.stringify(source)}): ${why}. Expected a JavaScript regular expression such as "\\\\bacme\\\\b".`, cause === undefined ? {} : { cause });
    try {
      new RegExp(source, "iu"); // the documented syntax: what cairn.config.json validation accepts
    } catch (cause) {
      throw invalid((cause as Error).message, cause);
    }
    if (!repeats(source)) {
      const regex = new RegExp(source, fastFlags(source));
      return { source, matches: (text) => v8Matches(regex, text) };
    }
    let re: RE2JS;
    try {
      re = RE2JS.compile(forRe2(source), RE2JS.CASE_INSENSITIVE);
    } catch (cause) {
      throw invalid(`a pattern with a repetition (*, +, ?, {n}) is matched in linear time by RE2, which has no lookaround or backreferences (${(cause as Error).message})`, cause);
    }
    return { source, matches: (text) => re2Matches(re, text) };
  });
}

/** True when `source` repeats something: a quantifier outside a character class (not the `?` of a group's `(?`). */
function repeats(source: string): boolean {
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") {
      i++;
      continue;
    }
    if (inClass) {
      if (c === "]") inClass = false;
      continue;
    }
    if (c === "[") inClass = true;
    else if (c === "*" || c === "+" || c === "{") return true;
    else if (c === "?" && source[i - 1] !== "(") return true;
  }
  return false;
}

/** JavaScript's `\uXXXX` and `\u{X}` escapes in RE2's spelling (`\x{X}`); the rest of the syntax is shared. */
function forRe2(source: string): string {
  return source.replace(/\\(\\)|\\u\{([0-9A-Fa-f]+)\}|\\u([0-9A-Fa-f]{4})/g, (m, escaped: string | undefined, braced: string | undefined, four: string | undefined) => (escaped ? m : `\\x{${braced ?? four}}`));
}

function* v8Matches(regex: RegExp, text: string): Iterable<[number, number]> {
  regex.lastIndex = 0;
  for (let m = regex.exec(text); m; m = regex.exec(text)) {
    yield [m.index, m.index + m[0].length];
    if (m[0].length === 0) regex.lastIndex += (text.codePointAt(m.index) ?? 0) > 0xffff ? 2 : 1;
  }
}

function* re2Matches(re: RE2JS, text: string): Iterable<[number, number]> {
  const m = re.matcher(text);
  while (m.find()) yield [m.start(), m.end()];
}

function shown(match: string): string {
  const single = match.replace(/\s+/g, " ");
  return single.length > 40 ? `${single.slice(0, 39)}…` : single;
}

/** Every match of every deny pattern in the original text (zero-length matches are ignored). */
export function detectDenied(text: string, patterns: readonly DenyPattern[]): Finding[] {
  const found: Finding[] = [];
  for (const { source, matches } of patterns) {
    for (const [start, end] of matches(text)) {
      if (end === start) continue;
      const match = text.slice(start, end);
      found.push({
        start,
        end,
        rule: "deny-pattern",
        message: `Found "${shown(match)}", which matches the deny pattern /${source}/ (an organisation or customer identifier): entries are shared across projects and injected into prompts. Expected a generic description instead, e.g. "a customer" or "the payments service".`,
      });
    }
  }
  return found;
}
