/**
 * Text that tries to instruct the agent an entry is injected into: the phrase families in
 * injection-phrases.ts, matched on folded text (fold.ts) so that case, spacing, line breaks,
 * zero-width characters, look-alike letters and leetspeak do not hide them; spaced-out letters
 * (`i g n o r e …`); base64 blobs that decode to such text; and role markers on their own line
 * (`## SYSTEM`, `Assistant:`). Every scan is linear: literals are checked before any regex, every
 * quantifier is bounded, look-back windows are at most 48 characters. Measured on a corpus of
 * payloads and benign review prose (test/fixtures/corpora/injection.ts, bench/injection.ts).
 */
import type { Finding } from "./finding.js";
import { fold, originalSpan, type Folded } from "./fold.js";
import { COMPACT, IMPERATIVE_BEFORE, NEGATED_BEFORE, PHRASES, ROLE_LINE } from "./injection-phrases.js";

const LOOK_BACK = 48;
const BASE64 = /(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{24,4096}={0,2}(?![A-Za-z0-9+/=])/g;

function shown(match: string): string {
  const single = match.replace(/\s+/g, " ").trim();
  return single.length > 50 ? `${single.slice(0, 49)}…` : single;
}

function finding(text: string, start: number, end: number, how = ""): Finding {
  return {
    start,
    end,
    rule: "prompt-injection",
    message: `Found text that reads like an instruction to the agent ("${shown(text.slice(start, end))}"${how}): entries are injected into agent prompts, where such text could override the orchestrator's instructions. Expected a description of the code pattern; for an entry about prompt injection, describe the attack (e.g. "user text asking the model to drop its instructions") instead of quoting it.`,
  };
}

/** Phrase matches in folded text, as folded spans; `lineBreak` marks spaces that were line breaks (a line start is an imperative position). */
function phraseSpans(folded: string, lineBreak?: Uint8Array): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  for (const phrase of PHRASES) {
    if (!phrase.needs.some((literal) => folded.includes(literal))) continue;
    phrase.pattern.lastIndex = 0;
    for (let m = phrase.pattern.exec(folded); m; m = phrase.pattern.exec(folded)) {
      if (m[0].length === 0) {
        phrase.pattern.lastIndex++;
        continue;
      }
      const before = folded.slice(Math.max(0, m.index - LOOK_BACK), m.index);
      const lineStart = m.index === 0 || lineBreak?.[m.index - 1] === 1;
      if (phrase.imperative && !lineStart && !IMPERATIVE_BEFORE.test(before)) continue;
      if (phrase.unnegated && NEGATED_BEFORE.test(before)) continue;
      spans.push([m.index, m.index + m[0].length]);
    }
  }
  return spans;
}

/** Letters only (`i g n o r e`, `i.g.n.o.r.e` → `ignore`), with where each came from in the folded text. */
function compactSpans(folded: string): Array<[number, number]> {
  const letters: string[] = [];
  const from: number[] = [];
  for (let i = 0; i < folded.length; i++) {
    const c = folded.charCodeAt(i);
    if (c >= 97 && c <= 122) {
      letters.push(folded[i]!);
      from.push(i);
    }
  }
  const compact = letters.join("");
  const spans: Array<[number, number]> = [];
  COMPACT.lastIndex = 0;
  for (let m = COMPACT.exec(compact); m; m = COMPACT.exec(compact)) spans.push([from[m.index]!, from[m.index + m[0].length - 1]! + 1]);
  return spans;
}

/** Base64 blobs whose decoded text is printable and holds an injection phrase. */
function encodedFindings(text: string): Finding[] {
  const out: Finding[] = [];
  BASE64.lastIndex = 0;
  for (let m = BASE64.exec(text); m; m = BASE64.exec(text)) {
    const decoded = Buffer.from(m[0], "base64").toString("latin1");
    let printable = 0;
    for (let i = 0; i < decoded.length; i++) {
      const c = decoded.charCodeAt(i);
      if ((c >= 32 && c < 127) || c === 10 || c === 13 || c === 9) printable++;
    }
    if (decoded.length < 12 || printable / decoded.length < 0.95) continue;
    const inner = fold(decoded).text;
    if (phraseSpans(inner).length || compactSpans(inner).length) out.push(finding(text, m.index, m.index + m[0].length, `, base64 for "${shown(decoded)}"`));
  }
  return out;
}

function roleLines(text: string): Finding[] {
  if (!/system|assistant|developer|instruction|human/i.test(text)) return [];
  const out: Finding[] = [];
  ROLE_LINE.lastIndex = 0;
  for (let m = ROLE_LINE.exec(text); m; m = ROLE_LINE.exec(text)) {
    if (m[0].length === 0) {
      ROLE_LINE.lastIndex++;
      continue;
    }
    const start = m.index + (m[0].length - m[0].trimStart().length);
    out.push(finding(text, start, m.index + m[0].trimEnd().length, ", a chat role marker on its own line"));
  }
  return out;
}

/** Prompt-injection findings in the original text (overlaps reported once). */
export function detectInjection(text: string): Finding[] {
  const folded: Folded = fold(text);
  const found: Finding[] = [];
  for (const [s, e] of phraseSpans(folded.text, folded.lineBreak)) {
    const span = originalSpan(folded, s, e);
    found.push(finding(text, span.start, span.end));
  }
  for (const [s, e] of compactSpans(folded.text)) {
    const span = originalSpan(folded, s, e);
    found.push(finding(text, span.start, span.end, ", written with letters spaced out"));
  }
  found.push(...encodedFindings(text), ...roleLines(text));
  found.sort((a, b) => a.start - b.start || b.end - a.end);
  let reached = -1;
  return found.filter((f) => {
    if (f.start < reached) return false;
    reached = f.end;
    return true;
  });
}
