/**
 * A unified diff as retrieval evidence: which files changed, which lines of the base version each
 * hunk touches (anchors point into the base tree), the enclosing function names git prints after
 * `@@`, and the changed code itself, bounded, for the query. Parsing is parse-diff's (a small,
 * widely used unified-diff parser); this module only decides what of it is evidence.
 */
import parseDiff from "parse-diff";
import type { ChangedFile, ChangedRange } from "../types/search.js";

export type { ChangedFile, ChangedRange } from "../types/search.js";

export type DiffEvidence = {
  files: ChangedFile[];
  /** Every changed path (new and old paths), for the changed-file signal. */
  paths: string[];
  /** The changed code for the query: hunk headings and lines, files taken in turn, at most `maxQueryChars`. */
  queryText: string;
};

/** Characters of diff code added to a query by default: enough for the hunks of a typical PR, bounded so a huge diff cannot slow search. */
export const DEFAULT_DIFF_QUERY_CHARS = 12_000;

const clean = (p: string | undefined): string | undefined =>
  p === undefined || p === "/dev/null" ? undefined : p.replace(/^[ab]\//, "").replace(/^\.\//, "").split("\\").join("/");

/** Ranges of base lines a hunk's removals and insertions touch, merged when adjacent. */
function hunkRanges(changes: parseDiff.Change[]): ChangedRange[] {
  const lines: number[] = [];
  let lastBase = 0;
  for (const change of changes) {
    if (change.type === "normal") lastBase = change.ln1;
    else if (change.type === "del") (lastBase = change.ln), lines.push(change.ln);
    else lines.push(Math.max(1, lastBase)); // an insertion touches the base line it follows
  }
  const ranges: ChangedRange[] = [];
  for (const line of lines.sort((a, b) => a - b)) {
    const last = ranges[ranges.length - 1];
    if (last && line <= last.end + 1) last.end = Math.max(last.end, line);
    else ranges.push({ start: line, end: line });
  }
  return ranges;
}

/** Parse a unified diff (`git diff` output, with or without `diff --git` lines). Text that holds no diff gives no files. */
export function parseDiffEvidence(text: string, options: { maxQueryChars?: number } = {}): DiffEvidence {
  const max = options.maxQueryChars ?? DEFAULT_DIFF_QUERY_CHARS;
  const files: ChangedFile[] = [];
  for (const file of parseDiff(text)) {
    const to = clean(file.to);
    const from = clean(file.from);
    const path = to ?? from;
    if (!path) continue;
    const ranges: ChangedRange[] = [];
    const headings: string[] = [];
    const code: string[] = [];
    for (const chunk of file.chunks) {
      const heading = chunk.content.replace(/^@@[^@]*@@\s?/, "").trim();
      if (heading) headings.push(heading);
      if (from) ranges.push(...hunkRanges(chunk.changes));
      code.push(...(heading ? [heading] : []), ...chunk.changes.map((c) => c.content.slice(1)));
    }
    files.push({ path, ...(from && from !== path ? { oldPath: from } : {}), ranges, headings, code });
  }
  const paths = [...new Set(files.flatMap((f) => (f.oldPath ? [f.path, f.oldPath] : [f.path])))];
  return { files, paths, queryText: boundedCode(files, max) };
}

/** The files' code lines taken round-robin (every file's first lines before any file's later ones), up to `max` characters. */
function boundedCode(files: readonly ChangedFile[], max: number): string {
  const out: string[][] = files.map(() => []);
  let used = 0;
  for (let line = 0, more = true; more && used < max; line++) {
    more = false;
    files.forEach((file, i) => {
      const text = file.code[line];
      if (text === undefined || used >= max) return;
      more = true;
      const piece = text.slice(0, max - used);
      out[i]!.push(piece);
      used += piece.length + 1;
    });
  }
  return out.map((lines) => lines.join("\n")).filter((s) => s.trim()).join("\n\n");
}
