/**
 * The block structure an entry body needs, in one linear pass over its lines: headings (ATX and
 * setext, also inside block quotes) and the lines that are code or HTML (fenced and indented code,
 * HTML blocks and comments), where a `Verify:` label is not a marker. A CommonMark subset: what
 * entries use. It replaced remark-parse here because micromark takes 20–40 ms per KB on bodies of
 * repeated fences, headings or `<|` (8 s for 200 KB of `<|im_start|>`, growing faster than the input),
 * and an entry may be 1 MB; this scanner is linear in the body whatever it holds.
 */

export type BlockHeading = {
  /** 1-based body line where the heading starts, and where it ends (a setext heading spans two lines). */
  start: number;
  end: number;
  depth: number;
  /** Heading text without inline markup. */
  text: string;
};

export type Blocks = { headings: BlockHeading[]; codeLines: Set<number> };

const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/;
const THEMATIC = /^ {0,3}(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$/;
const HTML_START = /^ {0,3}<(?:!--|[A-Za-z][A-Za-z0-9-]*(?:\s|\/?>|$)|\/[A-Za-z][A-Za-z0-9-]*\s*>|\?|![A-Za-z]|!\[CDATA\[)/;
const LIST_ITEM = /^ {0,3}(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)/;
const QUOTE = /^ {0,3}> ?/;

/** Inline markup removed: code spans, emphasis markers, links and images keep their text. */
export function plainInline(text: string): string {
  return text
    .replace(/!?\[([^\]\n]{0,500})\]\([^)\n]{0,2000}\)/g, "$1")
    .replace(/`+/g, "")
    .replace(/(^|[^\w])[*_]{1,3}|[*_]{1,3}(?=[^\w]|$)/g, "$1")
    .trim();
}

export function scanBlocks(lines: readonly string[]): Blocks {
  const headings: BlockHeading[] = [];
  const codeLines = new Set<number>();
  let fence: { char: string; length: number } | undefined;
  let html: "comment" | "block" | undefined;
  let paragraph = false;
  let paragraphStart = 0;
  let listContext = false;
  let previousBlank = true;
  for (let i = 0; i < lines.length; i++) {
    const lineNo = i + 1;
    const raw = lines[i] ?? "";
    if (fence) {
      codeLines.add(lineNo);
      const close = FENCE.exec(raw);
      if (close && close[1]![0] === fence.char && close[1]!.length >= fence.length && !close[2]!.trim()) fence = undefined;
      continue;
    }
    if (html) {
      codeLines.add(lineNo);
      if (html === "comment" ? raw.includes("-->") : !raw.trim()) html = undefined;
      continue;
    }
    const blank = !raw.trim();
    if (blank) {
      paragraph = false;
      previousBlank = true;
      continue;
    }
    const line = raw.replace(QUOTE, "");
    const open = FENCE.exec(line);
    if (open && !(open[1]![0] === "`" && open[2]!.includes("`"))) {
      fence = { char: open[1]![0]!, length: open[1]!.length };
      codeLines.add(lineNo);
      paragraph = false;
      previousBlank = false;
      continue;
    }
    if (/^(?: {4}|\t)/.test(line) && !paragraph && !listContext && previousBlank) {
      codeLines.add(lineNo);
      previousBlank = false;
      continue;
    }
    if (!paragraph && HTML_START.test(line)) {
      codeLines.add(lineNo);
      html = line.trimStart().startsWith("<!--") ? (line.includes("-->") ? undefined : "comment") : "block";
      previousBlank = false;
      continue;
    }
    const atx = ATX.exec(line);
    if (atx) {
      headings.push({ start: lineNo, end: lineNo, depth: atx[1]!.length, text: plainInline(atx[2] ?? "") });
      paragraph = false;
      listContext = false;
      previousBlank = false;
      continue;
    }
    const setext = SETEXT.exec(line);
    if (setext && paragraph && !listContext) {
      const text = lines.slice(paragraphStart - 1, lineNo - 1).map((l) => l.replace(QUOTE, "").trim()).join(" ");
      headings.push({ start: paragraphStart, end: lineNo, depth: setext[1]![0] === "=" ? 1 : 2, text: plainInline(text) });
      paragraph = false;
      previousBlank = false;
      continue;
    }
    if (THEMATIC.test(line)) {
      paragraph = false;
      previousBlank = false;
      continue;
    }
    if (LIST_ITEM.test(line)) listContext = true;
    else if (previousBlank && !/^[ \t]/.test(line)) listContext = false;
    if (!paragraph) paragraphStart = lineNo;
    paragraph = true;
    previousBlank = false;
  }
  return { headings, codeLines };
}
