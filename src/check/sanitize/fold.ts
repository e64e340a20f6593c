/**
 * Folding text for phrase detection, in one linear pass that remembers where every folded
 * character came from: lower case, accents dropped (`précédentes` → `precedentes`), look-alike
 * Cyrillic and Greek letters read as Latin (`ignоre` with a Cyrillic о), digits inside words read as
 * the letters they imitate (`1gn0re` → `ignore`), invisible characters (zero-width, bidi controls,
 * soft hyphen) removed, and every run of white space (line breaks included) one space.
 */
import { CONFUSABLES } from "../../text/confusables.js";
import { HIDDEN_CHARS } from "../../text/invisible.js";

export type Folded = {
  /** The folded text. */
  text: string;
  /** `offsets[i]`: offset in the original text of folded character i; `offsets[text.length]` is the original length. */
  offsets: Int32Array;
  /** `lineBreak[i]` is 1 when folded character i is a space that stands for white space holding a line break. */
  lineBreak: Uint8Array;
};

const INVISIBLE = new RegExp(`[${HIDDEN_CHARS}]`, "u");
/** White space, and the next-line control (U+0085), which a prompt reads as a line break but `\s` does not match. */
const SPACE = /[\s\u0085]/;
const LEET: Record<string, string> = { "0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", $: "s" };
const cache = new Map<string, string>();

/** One character folded: lower case, no accents, look-alikes as Latin letters (cached per character). */
function foldChar(ch: string): string {
  const code = ch.charCodeAt(0);
  if (code < 128) return code >= 65 && code <= 90 ? String.fromCharCode(code + 32) : ch;
  let out = cache.get(ch);
  if (out === undefined) {
    const lower = ch.toLowerCase();
    out = CONFUSABLES[lower] ?? lower.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase();
    if (cache.size < 4096) cache.set(ch, out);
  }
  return out;
}

const isLetter = (ch: string | undefined): boolean => {
  if (ch === undefined) return false;
  const code = ch.charCodeAt(0);
  return code < 128 ? (code | 32) >= 97 && (code | 32) <= 122 : /\p{L}/u.test(ch);
};

export function fold(text: string): Folded {
  const chars: string[] = [];
  const offsets = new Int32Array(text.length + 1);
  const lineBreak = new Uint8Array(text.length + 1);
  let n = 0;
  let lastSpace = true;
  for (let i = 0; i < text.length; ) {
    const code = text.charCodeAt(i);
    if (code < 128) {
      // ASCII fast path: most of every entry.
      if (code === 32 || (code >= 9 && code <= 13)) {
        if (!lastSpace) {
          offsets[n++] = i;
          chars.push(" ");
          lastSpace = true;
        }
        if (code === 10 || code === 13) lineBreak[n - 1] = 1;
      } else {
        const leet = LEET[text[i]!];
        offsets[n++] = i;
        chars.push(leet !== undefined && (isLetter(text[i - 1]) || isLetter(text[i + 1])) ? leet : code >= 65 && code <= 90 ? String.fromCharCode(code + 32) : text[i]!);
        lastSpace = false;
      }
      i++;
      continue;
    }
    const cp = text.codePointAt(i)!;
    const width = cp > 0xffff ? 2 : 1;
    const ch = text.slice(i, i + width);
    if (INVISIBLE.test(ch)) {
      i += width;
      continue;
    }
    if (SPACE.test(ch)) {
      if (!lastSpace) {
        offsets[n++] = i;
        chars.push(" ");
        lastSpace = true;
      }
      if (ch === "\u2028" || ch === "\u2029" || ch === "\u0085") lineBreak[n - 1] = 1;
      i += width;
      continue;
    }
    let folded = foldChar(ch);
    const leet = LEET[ch];
    if (leet !== undefined && (isLetter(text[i - 1]) || isLetter(text[i + 1]))) folded = leet;
    for (const c of folded) {
      offsets[n++] = i;
      chars.push(c);
    }
    lastSpace = false;
    i += width;
  }
  offsets[n] = text.length;
  return { text: chars.join(""), offsets: offsets.subarray(0, n + 1), lineBreak: lineBreak.subarray(0, n + 1) };
}

/** Original [start, end) of folded [start, end). */
export function originalSpan(folded: Folded, start: number, end: number): { start: number; end: number } {
  const last = folded.offsets[Math.max(start, end - 1)] ?? 0;
  return { start: folded.offsets[start] ?? 0, end: end > start ? last + 1 : last };
}
