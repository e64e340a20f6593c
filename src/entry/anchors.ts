/** Parse the text of an Evidence section into structured anchors (pure: no I/O). */
import type { Anchor, TextSpan } from "./types.js";
import { collapse, readCore, readFollow, readHead, skipInline, skipSpace, type Core, type Follow } from "./anchor-tokens.js";

/**
 * The most evidence lines an entry brings into a prompt (`inject`), and beyond which `check` warns
 * (`evidence-too-many`). An entry can cite thousands of places (a pull request can commit one that does: 30,000
 * anchors fit under the 1 MB file limit); no prompt budget holds them, and comparing every line with every other
 * took one such entry's inject 4.6 s.
 */
export const MAX_EVIDENCE_LINES = 50;

/*
 * Grammar, per chunk (a list item, a paragraph, or a `;`-separated part of either):
 *   [see] HEAD [SYMBOL] [SEP NOTE]            HEAD = PATH [LOC] | `PATH[LOC]` | [PATH[LOC]](url)
 *   [see] SYMBOL (in|at|from|of) HEAD [SEP NOTE]
 *   [see] SYMBOL [SEP NOTE]                   a symbol-only anchor
 * LOC is `:47`, `:47-52`, `#L47-L52` or `, lines 47-52`; SEP is ` — `, `–`, ` - `, `--`, `: ` or `,`.
 * Heuristics that keep prose out:
 * - A path needs a `/`, a known file extension, a known file name (Makefile) or to be a dotfile;
 *   URLs, domains, dates and version numbers are not paths.
 * - A "weak" head (no backticks, no LOC, and no `/` plus extension, e.g. `Node.js`, `and/or`, a bare
 *   symbol) must be followed by a separator, a symbol, a line break or the end; prose right after it
 *   means the chunk is prose, not an anchor.
 * - A `;` part that is not an anchor continues the previous anchor's note.
 * - Inside a paragraph or item, a new line starting with a path that has a LOC, is in backticks,
 *   or is followed by a separator/end starts a new anchor; other lines continue the note.
 * - `a.go:1, b.go:2` is two anchors. Only the first symbol after a path is kept.
 * - A line starting `Verify:` or `Fix:` ends the evidence (defensive: the section splitter should do this).
 */

const SEE = /(?:see|cf\.)(?:[ \t]+also)?[ \t]+/iy;
const JOIN = /(?:and|&)[ \t]+/iy;
const LABEL = /^[ \t]*(?:\*\*|__)?evidence(?:\*\*|__)?[ \t]*:(?:\*\*|__)?[ \t]*/i;
const ITEM = /^[ \t]*(?:>[ \t]*)*(?:[-*+]|\d{1,3}[.)])[ \t]+/;

type Span = { start: number; end: number; continuation: boolean };

/** Parse the text of an Evidence section into anchors. `startLine`/`startColumn` give the position of `text` in the file, so anchors carry file positions. */
export function parseAnchors(text: string, startLine: number, startColumn = 1): Anchor[] {
  const src = text.replace(/\r\n?/g, "\n");
  const lineStarts = [0];
  for (let i = src.indexOf("\n"); i !== -1; i = src.indexOf("\n", i + 1)) lineStarts.push(i + 1);
  const position = (offset: number): { line: number; column: number } => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lineStarts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    const column = offset - lineStarts[lo]! + 1;
    return { line: startLine + lo, column: lo === 0 ? column + startColumn - 1 : column };
  };

  const anchors: Anchor[] = [];
  for (const block of splitBlocks(src, lineStarts)) {
    for (const chunk of splitChunks(src, block)) readChunk(src, chunk, anchors, position);
  }
  return anchors;
}

/** List items and paragraphs as offset ranges; headings, code fences, blank lines and list markers are dropped. */
function splitBlocks(src: string, lineStarts: number[]): Array<{ start: number; end: number }> {
  const blocks: Array<{ start: number; end: number }> = [];
  let current: { start: number; end: number } | undefined;
  let labelChecked = false;
  let inFence = false;
  for (let n = 0; n < lineStarts.length; n++) {
    const from = lineStarts[n]!;
    const to = n + 1 < lineStarts.length ? lineStarts[n + 1]! - 1 : src.length;
    let line = src.slice(from, to);
    let offset = from;
    const fence = /^[ \t]*(?:```|~~~)/.test(line);
    if (fence) inFence = !inFence;
    if (fence || inFence || !line.trim() || /^[ \t]*#{1,6}(?:[ \t]|$)/.test(line)) {
      current = undefined;
      labelChecked ||= Boolean(line.trim());
      continue;
    }
    if (/^[ \t]*(?:verify|verification|fix)[ \t]*:/i.test(line)) break;
    if (!labelChecked) {
      labelChecked = true;
      const label = LABEL.exec(line);
      if (label) {
        offset += label[0].length;
        line = line.slice(label[0].length);
        if (!line.trim()) continue;
      }
    }
    const item = ITEM.exec(line);
    if (item) {
      current = { start: offset + item[0].length, end: to };
      blocks.push(current);
    } else if (current) {
      current.end = to;
    } else {
      current = { start: offset + (line.length - line.trimStart().length), end: to };
      blocks.push(current);
    }
  }
  return blocks;
}

/** Split a block at lines that start a new anchor, then at `;` outside backticks. */
function splitChunks(src: string, block: { start: number; end: number }): Span[] {
  const cuts = [block.start];
  for (let nl = src.indexOf("\n", block.start); nl !== -1 && nl < block.end; nl = src.indexOf("\n", nl + 1)) {
    const at = skipInline(src, nl + 1, block.end);
    const core = readCore(src, at, block.end);
    if (core?.path === undefined) continue;
    const follow = readFollow(src, core.rawEnd, block.end);
    if (core.hasLoc || src[core.rawStart] === "`" || follow.kind !== "prose" || follow.newline) cuts.push(at);
  }
  cuts.push(block.end);
  const spans: Span[] = [];
  for (let c = 0; c + 1 < cuts.length; c++) {
    const end = cuts[c + 1]!;
    let start = cuts[c]!;
    let inTick = false;
    let continuation = false;
    for (let i = start; i < end; i++) {
      if (src[i] === "`") inTick = !inTick;
      else if (src[i] === ";" && !inTick) {
        spans.push({ start, end: i, continuation });
        start = i + 1;
        continuation = true;
      }
    }
    spans.push({ start, end, continuation });
  }
  return spans;
}

function readChunk(src: string, chunk: Span, anchors: Anchor[], position: (offset: number) => { line: number; column: number }): void {
  const start = skipSpace(src, chunk.start, chunk.end);
  SEE.lastIndex = start;
  let i = SEE.exec(src) ? SEE.lastIndex : start;
  const toAnchor = (core: Core): Anchor => {
    const anchor: Anchor = { raw: src.slice(core.rawStart, core.rawEnd), ...position(core.at) };
    if (core.repo !== undefined) anchor.repo = core.repo;
    if (core.path !== undefined) anchor.path = core.path;
    if (core.glob) anchor.glob = true;
    if (core.startLine !== undefined) anchor.startLine = core.startLine;
    if (core.endLine !== undefined) anchor.endLine = core.endLine;
    if (core.symbol !== undefined) anchor.symbol = core.symbol;
    if (core.fragment) anchor.fragment = true;
    if (core.path !== undefined && core.pathEnd !== undefined) {
      const path: TextSpan = { ...position(core.at), text: src.slice(core.at, core.pathEnd) };
      anchor.spans = core.locStart !== undefined && core.locEnd !== undefined ? { path, loc: { ...position(core.locStart), text: src.slice(core.locStart, core.locEnd) } } : { path };
    }
    return anchor;
  };
  let core = readCore(src, i, chunk.end);
  let follow = core && readFollow(src, core.rawEnd, chunk.end);
  if (!core || !follow || !accepted(core, follow)) {
    readProse(src, { ...chunk, start }, anchors, toAnchor);
    return;
  }
  for (;;) {
    const anchor = toAnchor(core);
    anchors.push(anchor);
    // `a.go:1, b.go:2` and `a.go:1 and b.go:2` are two anchors.
    JOIN.lastIndex = follow.noteStart;
    const joined: number = follow.kind === "comma" ? follow.noteStart : follow.kind === "prose" && JOIN.exec(src) ? JOIN.lastIndex : -1;
    const next = joined === -1 ? undefined : readCore(src, joined, chunk.end);
    const nextFollow = next && readFollow(src, next.rawEnd, chunk.end);
    if (next?.path !== undefined && nextFollow && accepted(next, nextFollow)) {
      [i, core, follow] = [joined, next, nextFollow];
      continue;
    }
    const note = collapse(src.slice(follow.noteStart, chunk.end)).replace(/^[.,;:]+\s*/, "");
    if (note) {
      anchor.note = note;
      // Paths and calls further on in the note are anchors too (`a.md describes X, but b/c.md says Y`).
      scanProse(src, follow.noteStart, chunk.end, note, anchors, toAnchor);
    }
    return;
  }
}

/**
 * A chunk that does not start with an anchor: every path or glob inside it is an anchor whose note
 * is the whole chunk (a chunk without one gets its calls as symbol-only anchors); otherwise a `;`
 * part continues the previous anchor's note.
 */
function readProse(src: string, chunk: Span, anchors: Anchor[], toAnchor: (core: Core) => Anchor): void {
  const prose = collapse(src.slice(chunk.start, chunk.end));
  const found = scanProse(src, chunk.start, chunk.end, prose, anchors, toAnchor, true);
  const previous = anchors[anchors.length - 1];
  if (!found && chunk.continuation && previous && prose) previous.note = previous.note ? `${previous.note}; ${prose}` : prose;
}

/**
 * Anchors inside prose, at word starts. Taken: a path with a location, in backticks or a link; a
 * path with a `/` and a file extension, a glob or a trailing `/`; a `repo:path`; a bare file name
 * (`lib-sprint.sh`), as a *mention* (one that resolves to nothing is not reported, see
 * check/anchors.ts). With `calls`, when no path was found, calls (`enforce_gate()`) are taken as
 * symbol-only mentions.
 */
function scanProse(src: string, start: number, end: number, note: string, anchors: Anchor[], toAnchor: (core: Core) => Anchor, calls = false): number {
  const paths: Anchor[] = [];
  const symbols: Anchor[] = [];
  for (let p = start; p < end; p++) {
    if (p > start && !/[\s(]/.test(src[p - 1]!)) continue;
    const core = readCore(src, p, end);
    if (!core) continue;
    const explicit = core.hasLoc || src[p] === "`" || src[p] === "[" || core.repo !== undefined;
    if (core.path === undefined) {
      if (core.call && calls) symbols.push({ ...toAnchor(core), note, mention: true });
    } else if (explicit || core.strong || core.bare) {
      const anchor: Anchor = { ...toAnchor(core), note };
      if (!explicit && !core.strong) anchor.mention = true;
      const qualifier = QUALIFIER.exec(src.slice(Math.max(start, p - 60), p));
      if (qualifier) anchor.qualifier = qualifier[1]!;
      paths.push(anchor);
    } else continue;
    p = core.rawEnd;
  }
  const found = paths.length ? paths : symbols;
  anchors.push(...found);
  return found.length;
}

/** The word right before an anchor in prose: `in interphase lib-gates.sh`, `executing-plans SKILL.md`. */
const QUALIFIER = /(?:^|[\s(])([A-Za-z][\w.-]*?[\w])(?:'s)?[ \t]+$/;

function accepted(core: Core, follow: Follow): boolean {
  return core.strong || follow.kind !== "prose" || follow.newline;
}
