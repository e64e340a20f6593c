/**
 * Text hidden in characters that show nothing: Unicode tag characters (a model reads U+E0041 as `A`, so a sentence
 * can ride along invisibly: "ASCII smuggling") and runs of variation selectors (256 of them, one per byte value, can
 * carry any bytes after a single visible character). No editor, `git diff` or terminal shows either, so a reviewer
 * approves what a prompt would read. The prompt drops them (src/text/invisible.ts); the entry must not carry them.
 */
import type { Finding } from "./finding.js";

/** Tag characters, except those of an emoji tag sequence (a subdivision flag: 🏴 + tag letters or digits + cancel tag). */
const TAGS = /\u{1F3F4}[\u{E0030}-\u{E0039}\u{E0061}-\u{E007A}]{1,8}\u{E007F}|[\u{E0000}-\u{E007F}]+/gu;
/** Variation selectors in a row: a character takes one; two or more carry something else. */
const SELECTORS = /[\uFE00-\uFE0F\u{E0100}-\u{E01EF}]{2,}/gu;
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
  for (const match of text.matchAll(SELECTORS)) {
    const bytes = [...match[0]].map((c) => {
      const code = c.codePointAt(0)!;
      return code <= 0xfe0f ? code - 0xfe00 : code - 0xe0100 + 16;
    });
    const decoded = new TextDecoder().decode(Uint8Array.from(bytes));
    findings.push(finding(match.index, match[0].length, `${bytes.length} variation selectors in a row${spelling(decoded)}: a character takes at most one, and a run can carry hidden bytes that show nothing — delete them`));
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
