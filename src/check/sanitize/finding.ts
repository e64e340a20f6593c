/** A raw sanitization finding (offsets into the text), plus masking so later rules skip what earlier ones reported. */
import type { SanitizeRuleId } from "./rules.js";

export type Finding = {
  /** Offset (UTF-16 code units) where the match starts. */
  start: number;
  /** Offset just past the match. */
  end: number;
  rule: SanitizeRuleId;
  message: string;
};

/** What every detector may need besides the text. */
export type DetectContext = {
  /** Path of the scanned file relative to the repository root (or a label such as `<finding>`). */
  file: string;
};

/**
 * Blank out spans with spaces (line breaks kept), so offsets stay valid and later detectors
 * do not report the same text twice (e.g. an e-mail inside a URL already reported).
 */
export function maskSpans(text: string, spans: readonly { start: number; end: number }[]): string {
  if (spans.length === 0) return text;
  const sorted = [...spans].sort((a, b) => a.start - b.start);
  let out = "";
  let cursor = 0;
  for (const span of sorted) {
    const start = Math.max(span.start, cursor);
    if (span.end <= start) continue;
    out += text.slice(cursor, start) + text.slice(start, span.end).replace(/[^\r\n]/g, " ");
    cursor = span.end;
  }
  return out + text.slice(cursor);
}

/** A redacted rendering of a secret: a fixed, non-secret prefix followed by an ellipsis. */
export function redacted(prefix: string): string {
  return `${prefix}…`;
}
