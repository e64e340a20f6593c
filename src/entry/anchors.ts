/** Parse the text of an Evidence section into structured anchors (pure: no I/O). */
import type { Anchor } from "./types.js";

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
 * - A line starting `Verify:` ends the evidence (defensive: the section splitter should do this).
 */

const EXTENSIONS = new Set(
  (
    "ts tsx mts cts js jsx mjs cjs go rs py pyi pyx rb java kt kts scala swift c h cc cpp cxx hpp hh hxx " +
    "m mm cs fs fsx vb php pl pm lua r jl dart ex exs erl hrl clj cljs cljc hs ml mli elm vue svelte astro " +
    "html htm css scss sass less json jsonc json5 yaml yml toml ini cfg conf xml xsd md mdx rst txt adoc tex " +
    "sql graphql gql proto thrift sh bash zsh fish ps1 psm1 bat cmd tf tfvars hcl nix gradle cmake mk zig nim " +
    "sol csv tsv ipynb wasm cu cuh glsl hlsl plist gemspec podspec sbt bzl bazel cabal purs hbs ejs pug j2 njk " +
    "tmpl tpl liquid twig erb haml groovy jsp aspx cshtml razor xaml csproj fsproj sln vcxproj dockerfile"
  ).split(" "),
);
const KNOWN_NAMES = new Set(
  (
    "Makefile GNUmakefile Dockerfile Containerfile Gemfile Rakefile Procfile Jenkinsfile Vagrantfile Brewfile " +
    "Justfile Caddyfile LICENSE CODEOWNERS go.mod go.sum Cargo.lock yarn.lock poetry.lock Gemfile.lock flake.lock"
  ).split(" "),
);
const DOMAIN = /^[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|org|net|io|dev|edu|gov|co|ai|app|me|info|xyz|cloud|sh)$/i;
const STOP = new Set([" ", "\t", "\n", "`", "(", ")", ";", '"', "'", "<", ">", "|", "—", "–"]);

const LOC_COLON = /:L?(\d+)(?:[-–]L?(\d+))?(?::\d+)?(?![\w])/y;
const LOC_HASH = /#L(\d+)(?:C\d+)?(?:-L?(\d+)(?:C\d+)?)?(?![\w])/y;
const LOC_WORDS = /,?[ \t]*(?:lines?|ll?\.)[ \t]*(\d+)(?:[ \t]*(?:-|–|to)[ \t]*(\d+))?(?![\w])/iy;
const KEYWORD = /(?:function|func|fn|def|class|struct|enum|trait|impl|interface|type|module|mod|macro|method)[ \t]+/y;
const CHAIN = /[A-Za-z_$][\w$]*(?:(?:\.|::|#|->)[A-Za-z_$][\w$]*)*/y;
const CHAIN_SEP = /\.|::|#|->/;
const SEE = /(?:see|cf\.)(?:[ \t]+also)?[ \t]+/iy;
const RECEIVER = /\((?:[A-Za-z_]\w*[ \t]+)?\*?([A-Za-z_]\w*)\)[ \t]*/y;
const METHOD_VALUE = /\(\*?([A-Za-z_]\w*)\)\./y;
const JOIN = /(?:and|&)[ \t]+/iy;
const IN = /[ \t]+(?:in|at|from|of|inside)[ \t]+/iy;
const LINK = /\[([^\]\n]+)\]\([^)\s]*\)/y;
const LABEL = /^[ \t]*(?:\*\*|__)?evidence(?:\*\*|__)?[ \t]*:(?:\*\*|__)?[ \t]*/i;
const ITEM = /^[ \t]*(?:>[ \t]*)*(?:[-*+]|\d{1,3}[.)])[ \t]+/;

type Span = { start: number; end: number; continuation: boolean };
type Core = {
  path?: string;
  glob?: boolean;
  startLine?: number;
  endLine?: number;
  symbol?: string;
  /** Offset of the path (or, without one, the symbol). */
  at: number;
  rawStart: number;
  rawEnd: number;
  strong: boolean;
  hasLoc: boolean;
};
type FollowKind = "end" | "sep" | "comma" | "prose";
type Follow = { kind: FollowKind; noteStart: number; newline: boolean };

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
    if (/^[ \t]*(?:verify|verification)[ \t]*:/i.test(line)) break;
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
    if (core.path !== undefined) anchor.path = core.path;
    if (core.glob) anchor.glob = true;
    if (core.startLine !== undefined) anchor.startLine = core.startLine;
    if (core.endLine !== undefined) anchor.endLine = core.endLine;
    if (core.symbol !== undefined) anchor.symbol = core.symbol;
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
    if (note) anchor.note = note;
    return;
  }
}

/**
 * A chunk that does not start with an anchor: a path with a LOC or in backticks inside it is an
 * anchor whose note is the whole chunk; otherwise a `;` part continues the previous anchor's note.
 */
function readProse(src: string, chunk: Span, anchors: Anchor[], toAnchor: (core: Core) => Anchor): void {
  const prose = collapse(src.slice(chunk.start, chunk.end));
  let found = false;
  for (let p = chunk.start; p < chunk.end; p++) {
    if (p > chunk.start && !/[\s(]/.test(src[p - 1]!)) continue;
    const head = readHead(src, p, chunk.end);
    if (!head || !(head.hasLoc || src[p] === "`" || src[p] === "[")) continue;
    anchors.push({ ...toAnchor(head), note: prose });
    found = true;
    p = head.rawEnd;
  }
  const previous = anchors[anchors.length - 1];
  if (!found && chunk.continuation && previous && prose) previous.note = previous.note ? `${previous.note}; ${prose}` : prose;
}

function accepted(core: Core, follow: Follow): boolean {
  return core.strong || follow.kind !== "prose" || follow.newline;
}

/** A head (path and/or symbol) at `i`, plus a symbol after a path; undefined when none starts there. */
function readCore(src: string, i: number, end: number): Core | undefined {
  const head = readHead(src, i, end);
  if (!head) {
    const symbol = readSymbolHead(src, i, end);
    if (!symbol) return undefined;
    IN.lastIndex = symbol.rawEnd;
    if (IN.exec(src) && IN.lastIndex < end) {
      const target = readHead(src, IN.lastIndex, end);
      if (target) return { ...target, symbol: symbol.symbol, rawStart: symbol.rawStart, strong: true };
    }
    return symbol;
  }
  // A symbol after the path: `, Server.listen`, ` parseEntry()`, ` (fn frobnicate)`, `` `sym` ``.
  let j = skipInline(src, head.rawEnd, end);
  const comma = src[j] === ",";
  if (comma) j = skipInline(src, j + 1, end);
  if ((comma || j > head.rawEnd) && j < end && !readHead(src, j, end)) {
    let found: { symbol: string; end: number } | undefined;
    if (src[j] === "`") found = readTickSymbol(src, j, end);
    else if (src[j] === "(" && !matchesAt(METHOD_VALUE, src, j)) {
      const inner = readSymbol(src, skipInline(src, j + 1, end), end, "code");
      const close = inner && skipInline(src, inner.end, end);
      if (inner && close !== undefined && src[close] === ")") found = { symbol: inner.symbol, end: close + 1 };
    } else found = readSymbol(src, j, end, comma ? "code" : "none");
    if (found) return { ...head, symbol: found.symbol, rawEnd: found.end };
  }
  return head;
}

/** A path head: plain, in backticks, or as a markdown link's text; with an optional LOC. */
function readHead(src: string, i: number, end: number): Core | undefined {
  if (src[i] === "`" || src[i] === "[") {
    let innerStart: number;
    let innerEnd: number;
    let after: number;
    if (src[i] === "`") {
      const close = src.indexOf("`", i + 1);
      if (close === -1 || close >= end) return undefined;
      [innerStart, innerEnd, after] = [i + 1, close, close + 1];
    } else {
      LINK.lastIndex = i;
      const link = LINK.exec(src);
      if (!link || LINK.lastIndex > end) return readPlainPath(src, i, end);
      const text = link[1]!;
      const tick = text.startsWith("`") && text.endsWith("`") && text.length > 2 ? 1 : 0;
      [innerStart, innerEnd, after] = [i + 1 + tick, i + 1 + text.length - tick, LINK.lastIndex];
    }
    const inner = readPlainPath(src, innerStart, innerEnd);
    if (!inner || inner.rawEnd !== innerEnd) return undefined;
    const core: Core = { ...inner, rawStart: i, rawEnd: after, strong: true };
    return inner.hasLoc ? core : withLoc(src, core, end);
  }
  return readPlainPath(src, i, end);
}

function readPlainPath(src: string, i: number, end: number): Core | undefined {
  let j = i;
  let depth = 0;
  while (j < end) {
    const c = src[j]!;
    if (STOP.has(c)) break;
    if (c === "{") depth++;
    else if (c === "}") depth = Math.max(0, depth - 1);
    else if (c === "," && depth === 0) break;
    else if (c === ":" && /^(?:L?\d|\s|$)/.test(src.slice(j + 1, j + 3))) break;
    else if (c === "#" && /^L\d/.test(src.slice(j + 1, j + 3))) break;
    j++;
  }
  while (j > i && /[.!]/.test(src[j - 1]!)) j--;
  if (j === i || src[j] === "(") return undefined;
  const token = src.slice(i, j);
  const kind = classifyPath(token);
  if (!kind) return undefined;
  const path = token.startsWith("./") ? token.slice(2) : token;
  const core: Core = { path, at: i, rawStart: i, rawEnd: j, strong: kind.strong, hasLoc: false };
  if (kind.glob) core.glob = true;
  return withLoc(src, core, end);
}

function withLoc(src: string, core: Core, end: number): Core {
  const c = src[core.rawEnd];
  if (core.hasLoc || (c !== ":" && c !== "#" && c !== "," && c !== " " && c !== "\t")) return core;
  for (const re of c === ":" ? [LOC_COLON] : c === "#" ? [LOC_HASH] : [LOC_WORDS]) {
    re.lastIndex = core.rawEnd;
    const m = re.exec(src);
    if (!m || re.lastIndex > end) continue;
    const startLine = Number(m[1]);
    return { ...core, startLine, endLine: m[2] === undefined ? startLine : Number(m[2]), rawEnd: re.lastIndex, strong: true, hasLoc: true };
  }
  return core;
}

/** Is `token` a repo path or glob (not prose, a URL, a domain, a date or a version)? */
function classifyPath(token: string): { glob: boolean; strong: boolean } | undefined {
  if (token.includes("://") || token.startsWith("//") || /^(?:www\.|mailto:)/i.test(token)) return undefined;
  if (!/[A-Za-z*?]/.test(token) || /^v?\d+(?:\.\d+)+(?:[-+][\w.]*)?$/i.test(token)) return undefined;
  const glob = /[*?[\]{}]/.test(token);
  const last = token.slice(token.lastIndexOf("/") + 1);
  const ext = /\.([A-Za-z0-9_+-]+)$/.exec(last)?.[1]?.toLowerCase();
  const knownExt = ext !== undefined && EXTENSIONS.has(ext);
  if (token.includes("/")) {
    if (DOMAIN.test(token.split("/")[0]!)) return undefined;
    if (!knownExt && !glob && /^[A-Z]+(?:\/[A-Z]+)+$/.test(token)) return undefined; // I/O, CI/CD
    return { glob, strong: knownExt || glob || last === "" };
  }
  if (knownExt || KNOWN_NAMES.has(last) || /^\.[A-Za-z0-9][\w.-]*$/.test(last)) return { glob, strong: false };
  if (glob && /(?:^|\*)\.[\w{]/.test(token)) return { glob, strong: true };
  return undefined;
}

/** A symbol standing first in a chunk: `` `sym` ``, `name()`, `Type.method`, `fn name`. */
function readSymbolHead(src: string, i: number, end: number): Core | undefined {
  const found = src[i] === "`" ? readTickSymbol(src, i, end) : readSymbol(src, i, end, "none");
  if (!found) return undefined;
  const at = src[i] === "`" ? skipInline(src, i + 1, end) : i;
  return { symbol: found.symbol, at, rawStart: i, rawEnd: found.end, strong: false, hasLoc: false };
}

function readTickSymbol(src: string, i: number, end: number): { symbol: string; end: number } | undefined {
  const close = src.indexOf("`", i + 1);
  if (close === -1 || close >= end) return undefined;
  const inner = readSymbol(src, skipInline(src, i + 1, close), close, "any");
  if (!inner || skipInline(src, inner.end, close) !== close) return undefined;
  return { symbol: inner.symbol, end: close + 1 };
}

/**
 * `bare` says when a lone identifier counts: "any" (in backticks), "code" (after a comma or in
 * parentheses: only camelCase, snake_case or with digits) or "none" (needs `()`, `.`, `::` or a keyword).
 */
function readSymbol(src: string, i: number, end: number, bare: "any" | "code" | "none"): { symbol: string; end: number } | undefined {
  let j = i;
  KEYWORD.lastIndex = j;
  const keyword = KEYWORD.exec(src) !== null && KEYWORD.lastIndex < end;
  if (keyword) j = KEYWORD.lastIndex;
  // Go receivers: `(*Server).ServeHTTP`, `func (s *Server) ServeHTTP`.
  const receiverRe = keyword ? RECEIVER : METHOD_VALUE;
  receiverRe.lastIndex = j;
  const receiver = receiverRe.exec(src);
  if (receiver && receiverRe.lastIndex < end) {
    const method = readSymbol(src, receiverRe.lastIndex, end, "any");
    return method && { symbol: `${receiver[1]}.${method.symbol}`, end: method.end };
  }
  CHAIN.lastIndex = j;
  const chain = CHAIN.exec(src)?.[0];
  if (!chain || CHAIN.lastIndex > end) return undefined;
  let k = CHAIN.lastIndex;
  if (src[k] === "(") {
    const close = matchParen(src, k, end);
    if (close === -1) return undefined;
    k = close + 1;
  } else {
    if (src[k] === "/" || (src[k] === "." && /\w/.test(src[k + 1] ?? ""))) return undefined;
    const parts = chain.split(CHAIN_SEP);
    if (parts.length > 1 && parts.every((p) => p.length <= 1)) return undefined; // e.g. i.e.
    const codeLike = /[a-z0-9][A-Z]|[A-Za-z0-9]_[A-Za-z0-9]|^_|\d/.test(chain);
    if (parts.length === 1 && !keyword && !(bare === "any" || (bare === "code" && codeLike))) return undefined;
  }
  return { symbol: chain, end: k };
}

function matchParen(src: string, open: number, end: number): number {
  let depth = 0;
  for (let i = open; i < end && i < open + 200; i++) {
    if (src[i] === "(") depth++;
    else if (src[i] === ")" && --depth === 0) return i;
    else if (src[i] === "\n") return -1;
  }
  return -1;
}

/** What follows a head: the end, a separator, a comma, or prose; and where a note would start. */
function readFollow(src: string, i: number, end: number): Follow {
  let j = skipInline(src, i, end);
  let newline = false;
  if (src[j] === "\n") {
    newline = true;
    j = skipSpace(src, j, end);
  }
  if (j >= end) return { kind: "end", noteStart: end, newline };
  const c = src[j]!;
  const next = src[j + 1] ?? "";
  if (c === "—" || c === "–" || (c === "-" && next === "-")) return { kind: "sep", noteStart: j + (c === "-" ? 2 : 1), newline };
  if ((c === "-" || c === ":") && (next === "" || /\s/.test(next))) return { kind: "sep", noteStart: j + 1, newline };
  if (c === ",") return { kind: "comma", noteStart: skipSpace(src, j + 1, end), newline };
  return { kind: "prose", noteStart: j, newline };
}

function matchesAt(re: RegExp, src: string, i: number): boolean {
  re.lastIndex = i;
  return re.test(src);
}

function skipInline(src: string, i: number, end: number): number {
  while (i < end && (src[i] === " " || src[i] === "\t")) i++;
  return i;
}

function skipSpace(src: string, i: number, end: number): number {
  while (i < end && /\s/.test(src[i]!)) i++;
  return i;
}

function collapse(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
