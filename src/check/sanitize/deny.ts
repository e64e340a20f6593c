/** Configured organisation / customer identifiers (`sanitize.denyPatterns`): case-insensitive, Unicode regexes. */
import { CairnError } from "../../errors.js";
import type { Finding } from "./finding.js";

export type DenyPattern = { source: string; regex: RegExp };

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
    try {
      new RegExp(source, "iu"); // the documented syntax: what cairn.config.json validation accepts
      return { source, regex: new RegExp(source, fastFlags(source)) };
    } catch (cause) {
      throw new CairnError(
        "CONFIG",
        `sanitize.denyPatterns.${i} is not a valid regular expression (got ${JSON.stringify(source)}): ${(cause as Error).message}. Expected a JavaScript regular expression such as "\\\\bacme\\\\b".`,
        { cause },
      );
    }
  });
}

function shown(match: string): string {
  const single = match.replace(/\s+/g, " ");
  return single.length > 40 ? `${single.slice(0, 39)}…` : single;
}

/** Every match of every deny pattern in the original text (zero-length matches are ignored). */
export function detectDenied(text: string, patterns: readonly DenyPattern[]): Finding[] {
  const found: Finding[] = [];
  for (const { source, regex } of patterns) {
    regex.lastIndex = 0;
    for (let m = regex.exec(text); m; m = regex.exec(text)) {
      if (m[0].length === 0) {
        regex.lastIndex += (text.codePointAt(m.index) ?? 0) > 0xffff ? 2 : 1;
        continue;
      }
      found.push({
        start: m.index,
        end: m.index + m[0].length,
        rule: "deny-pattern",
        message: `Found "${shown(m[0])}", which matches the deny pattern /${source}/ (an organisation or customer identifier): entries are shared across projects and injected into prompts. Expected a generic description instead, e.g. "a customer" or "the payments service".`,
      });
    }
  }
  return found;
}
