/**
 * Split text into prose and code regions: markdown fences and inline backtick spans are code;
 * any other line is code when it carries a strong code signal (statement/block ends, `::`,
 * `->`, `=>`, `==`, `&&`, attribute or comment starts, method calls). Prose is everything else.
 */

export type Region = { text: string; code: boolean };

const FENCE = /^\s*(```|~~~)/;
const CODE_LINE = new RegExp(
  [
    String.raw`[;{}]\s*$`, // statement or block end
    String.raw`^\s*[}\])]`, // closing a block
    String.raw`^\s*(#!?\[|//|/\*|@\w)`, // attribute, comment, decorator
    String.raw`::|->|=>|==|!=|&&|\|\||<=|>=|\+=|-=`, // operators rare in prose
    String.raw`[\w\])]\.\w+\(`, // method call `x.f(`
    String.raw`\w\(\)`, // empty call `f()`
    String.raw`\w!\s*[([{]`, // macro call
    String.raw`^\s*(let|const|var|fn|func|def|function|import|export|return|pub|impl|use|class|struct|enum|type|interface|match|if|for|while)\b.*[=({:]`,
  ].join("|"),
);

/** True when a line outside markdown code looks like source code. */
export function isCodeLine(line: string): boolean {
  return CODE_LINE.test(line);
}

function splitInline(line: string, out: Region[]): void {
  const parts = line.split(/(`+[^`]*`+)/);
  for (const part of parts) {
    if (part === "") continue;
    if (part.startsWith("`")) out.push({ text: part.replace(/^`+|`+$/g, ""), code: true });
    else out.push({ text: part, code: isCodeLine(part) });
  }
}

/** Regions in text order; adjacent regions of the same kind are merged. */
export function splitRegions(text: string): Region[] {
  const regions: Region[] = [];
  let inFence = false;
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (FENCE.test(line)) {
      inFence = !inFence;
      continue;
    }
    if (inFence) regions.push({ text: line, code: true });
    else if (line.includes("`")) splitInline(line, regions);
    else regions.push({ text: line, code: isCodeLine(line) });
  }
  const merged: Region[] = [];
  for (const r of regions) {
    const last = merged[merged.length - 1];
    if (last && last.code === r.code) last.text += `\n${r.text}`;
    else merged.push({ ...r });
  }
  return merged;
}
