/**
 * Text hidden in characters that show nothing: Unicode tag characters (a model reads U+E0041 as `A`, so a sentence
 * can ride along invisibly: "ASCII smuggling") and runs of variation selectors (256 of them, one per byte value, can
 * carry any bytes after a single visible character). No editor, `git diff` or terminal shows either, so a reviewer
 * approves what a prompt would read. The prompt drops them (src/text/invisible.ts); the entry must not carry them.
 */
import type { Finding } from "./finding.js";

/**
 * Tag characters, except the three subdivision flags Unicode recommends for interchange (🏴 + `gbeng`, `gbsct` or
 * `gbwls` in tag letters + cancel tag): any other "flag" is a carrier (🏴 + `ignore` + cancel tag).
 */
const TAGS = /\u{1F3F4}(?:\u{E0067}\u{E0062}(?:\u{E0065}\u{E006E}\u{E0067}|\u{E0073}\u{E0063}\u{E0074}|\u{E0077}\u{E006C}\u{E0073}))\u{E007F}|[\u{E0000}-\u{E007F}]+/gu;
/**
 * Variation selectors that carry something: two or more in a row (a character takes one), and one that no character
 * takes. A selector selects a glyph Unicode registered: the ideographic ones (U+E0100…) and VS1–VS14 CJK ideographs,
 * VS1 some math symbols, VS1–VS3 letters of a few scripts (Myanmar, Phags-pa, Manichaean, Mongolian), VS15/VS16 the
 * text or emoji form of a symbol or digit, never a Latin letter. One byte per visible character, interleaved, is as
 * good a carrier as a run.
 */
const SELECTORS =
  /[\uFE00-\uFE0F\u{E0100}-\u{E01EF}]{2,}|(?<!\p{Ideographic})[\u{E0100}-\u{E01EF}]|(?<![\p{Ideographic}\p{Math}\p{Script=Myanmar}\p{Script=Phags_Pa}\p{Script=Manichaean}\p{Script=Mongolian}])\uFE00|(?<![\p{Ideographic}\p{Script=Myanmar}\p{Script=Phags_Pa}\p{Script=Manichaean}\p{Script=Mongolian}])[\uFE01\uFE02]|(?<!\p{Ideographic})[\uFE03-\uFE0D]|(?<=[A-Za-z])[\uFE0E\uFE0F]/gu;
/** Characters of decoded text shown in a message at most. */
const PREVIEW = 60;

export function detectHidden(text: string): Finding[] {
  if (!/[\uFE00-\uFE0F\uDB40]/.test(text)) return []; // every tag character and astral selector starts with U+DB40
  const findings: Finding[] = [];
  for (const match of text.matchAll(TAGS)) {
    if (match[0].startsWith("\u{1F3F4}")) continue;
    const spelled = [...match[0]].map((c) => String.fromCharCode(c.codePointAt(0)! - 0xe0000)).join("");
    const count = [...match[0]].length;
    findings.push(finding(match.index, match[0].length, `${count} invisible Unicode tag character${count === 1 ? "" : "s"}${spelling(spelled)}: a model reads them as text, and no editor, diff or terminal shows them — delete them`));
  }
  const selectors = [...text.matchAll(SELECTORS)];
  if (selectors.length) {
    // One finding for the text, at the first: what the selectors spell together is what they carry.
    const bytes = selectors.flatMap((m) => [...m[0]].map((c) => {
      const code = c.codePointAt(0)!;
      return code <= 0xfe0f ? code - 0xfe00 : code - 0xe0100 + 16;
    }));
    const decoded = new TextDecoder().decode(Uint8Array.from(bytes));
    const first = selectors[0]!;
    findings.push(finding(first.index, first[0].length, `${bytes.length} variation selector${bytes.length === 1 ? "" : "s"} where no character takes one${spelling(decoded)}: they can carry hidden bytes that show nothing — delete them`));
  }
  return findings;
}

function finding(start: number, length: number, message: string): Finding {
  return { start, end: start + length, rule: "hidden-text", message };
}

/** `, spelling "…"` when the hidden characters decode to readable text, shown as printable ASCII only. */
function spelling(decoded: string): string {
  const shown = decoded.replace(/[^\x20-\x7e]/g, "?");
  if (!/[A-Za-z]{2}/.test(shown)) return "";
  return `, spelling ${JSON.stringify(shown.length > PREVIEW ? `${shown.slice(0, PREVIEW)}…` : shown)}`;
}
