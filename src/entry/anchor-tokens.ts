/** Token readers of the evidence-anchor grammar (see anchors.ts): paths, line locations, symbols, separators. */

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
/** `(line 214)`, `(lines 3-9)`: a location in parentheses right after a path. */
const LOC_PAREN = /[ \t]*\([ \t]*(?:lines?|ll?\.)[ \t]*(\d+)(?:[ \t]*(?:-|–|to)[ \t]*(\d+))?[ \t]*\)/iy;
/** `#some-heading` after a path: a fragment naming a markdown heading (by its slug) or a symbol. */
const FRAGMENT = /#(?!L\d)([A-Za-z_][\w-]*)(?![\w#])/y;
/** `name:path` — an anchor into another repository (see README "Anchors into other repositories"). */
const REPO_PREFIX = /^([A-Za-z][\w.-]*[\w])(?:\/([\w.-]+))?:(?!\/\/)(.+)$/;
/** Product names that look like file names in prose (`Node.js`, `Vue.js`). */
const PRODUCT = /^[A-Z][a-z]+\.js$/;
const KEYWORD = /(?:function|func|fn|def|class|struct|enum|trait|impl|interface|type|module|mod|macro|method)[ \t]+/y;
const CHAIN = /[A-Za-z_$][\w$]*(?:(?:\.|::|#|->)[A-Za-z_$][\w$]*)*/y;
const CHAIN_SEP = /\.|::|#|->/;
const RECEIVER = /\((?:[A-Za-z_]\w*[ \t]+)?\*?([A-Za-z_]\w*)\)[ \t]*/y;
const METHOD_VALUE = /\(\*?([A-Za-z_]\w*)\)\./y;
const IN = /[ \t]+(?:in|at|from|of|inside)[ \t]+/iy;
const LINK = /\[([^\]\n]+)\]\([^)\s]*\)/y;
export type Core = {
  path?: string;
  /** Repository named by a `repo:path` prefix. */
  repo?: string;
  glob?: boolean;
  /** A `#fragment` after the path (kept as the symbol). */
  fragment?: boolean;
  startLine?: number;
  endLine?: number;
  symbol?: string;
  /** Offset of the path (or, without one, the symbol). */
  at: number;
  rawStart: number;
  rawEnd: number;
  strong: boolean;
  hasLoc: boolean;
  /** Offset just after the path as written (before a LOC or closing backtick). */
  pathEnd?: number;
  /** Offsets of the location text (`:47-52`, `#L47`, `, lines 4-9`). */
  locStart?: number;
  locEnd?: number;
  /** The symbol was written as a call: `name()`. */
  call?: boolean;
  /** A path without a `/`: a file name looked up by basename. */
  bare?: boolean;
};
export type FollowKind = "end" | "sep" | "comma" | "prose";
export type Follow = { kind: FollowKind; noteStart: number; newline: boolean };

/** A head (path and/or symbol) at `i`, plus a symbol after a path; undefined when none starts there. */
export function readCore(src: string, i: number, end: number): Core | undefined {
  const head = readHead(src, i, end);
  if (!head) {
    const symbol = readSymbolHead(src, i, end);
    if (!symbol) return undefined;
    IN.lastIndex = symbol.rawEnd;
    if (IN.exec(src) && IN.lastIndex < end) {
      const target = readHead(src, IN.lastIndex, end);
      if (target && target.symbol === undefined) {
        const core: Core = { ...target, symbol: symbol.symbol, rawStart: symbol.rawStart, strong: true };
        if (symbol.call) core.call = true;
        return core;
      }
    }
    return symbol;
  }
  // A symbol after the path: `, Server.listen`, ` parseEntry()`, ` (fn frobnicate)`, `` `sym` ``.
  let j = skipInline(src, head.rawEnd, end);
  const comma = src[j] === ",";
  if (comma) j = skipInline(src, j + 1, end);
  if ((comma || j > head.rawEnd) && j < end && !readHead(src, j, end)) {
    let found: FoundSymbol | undefined;
    if (src[j] === "`") found = readTickSymbol(src, j, end);
    else if (src[j] === "(" && !matchesAt(METHOD_VALUE, src, j)) {
      const inner = readSymbol(src, skipInline(src, j + 1, end), end, "code");
      const close = inner && skipInline(src, inner.end, end);
      if (inner && close !== undefined && src[close] === ")") found = { symbol: inner.symbol, end: close + 1, call: inner.call };
    } else found = readSymbol(src, j, end, comma ? "code" : "none");
    if (found && head.symbol === undefined) return { ...head, symbol: found.symbol, rawEnd: found.end, ...(found.call ? { call: true } : {}) };
  }
  return head;
}

/** A path head: plain, in backticks, or as a markdown link's text; with an optional LOC. */
export function readHead(src: string, i: number, end: number): Core | undefined {
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
    else if (c === "#" && /^(?:L\d|[A-Za-z_])/.test(src.slice(j + 1, j + 3))) break;
    j++;
  }
  while (j > i && /[.!?:]/.test(src[j - 1]!)) j--;
  if (j === i || src[j] === "(") return undefined;
  const token = src.slice(i, j);
  let kind = classifyPath(token);
  let repo: string | undefined;
  let pathToken = token;
  const prefixed = REPO_PREFIX.exec(token);
  if (prefixed && !/^[a-z][a-z0-9+.-]*:\/\//i.test(token)) {
    const inner = classifyPath(prefixed[3]!);
    // `name:path` names another repository only when the part after the colon is a real path.
    if (inner && (inner.strong || inner.bare)) {
      kind = { ...inner, strong: true };
      repo = prefixed[2] === undefined ? prefixed[1]! : `${prefixed[1]}/${prefixed[2]}`;
      pathToken = prefixed[3]!;
    }
  }
  if (!kind) return undefined;
  const path = pathToken.startsWith("./") ? pathToken.slice(2) : pathToken;
  const core: Core = { path, at: i, rawStart: i, rawEnd: j, strong: kind.strong, hasLoc: false, pathEnd: j };
  if (repo !== undefined) core.repo = repo;
  if (kind.glob) core.glob = true;
  if (kind.bare && repo === undefined) core.bare = true;
  FRAGMENT.lastIndex = j;
  const fragment = src[j] === "#" ? FRAGMENT.exec(src) : null;
  if (fragment && FRAGMENT.lastIndex <= end) {
    return { ...core, symbol: fragment[1]!, fragment: true, rawEnd: FRAGMENT.lastIndex, strong: true };
  }
  return withLoc(src, core, end);
}

function withLoc(src: string, core: Core, end: number): Core {
  const c = src[core.rawEnd];
  if (core.hasLoc || (c !== ":" && c !== "#" && c !== "," && c !== " " && c !== "\t")) return core;
  for (const re of c === ":" ? [LOC_COLON] : c === "#" ? [LOC_HASH] : [LOC_WORDS, LOC_PAREN]) {
    re.lastIndex = core.rawEnd;
    const m = re.exec(src);
    if (!m || re.lastIndex > end) continue;
    const startLine = Number(m[1]);
    return {
      ...core,
      startLine,
      endLine: m[2] === undefined ? startLine : Number(m[2]),
      rawEnd: re.lastIndex,
      strong: true,
      hasLoc: true,
      locStart: core.rawEnd,
      locEnd: re.lastIndex,
    };
  }
  return core;
}

/** Is `token` a repo path or glob (not prose, a URL, a domain, a date or a version)? `bare`: a file name without a directory. */
export function classifyPath(token: string): { glob: boolean; strong: boolean; bare?: boolean } | undefined {
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
  if (PRODUCT.test(token)) return undefined;
  if (knownExt || KNOWN_NAMES.has(last) || /^\.[A-Za-z0-9][\w.-]*$/.test(last)) return { glob, strong: false, bare: true };
  if (glob && /(?:^|\*)\.[\w{]/.test(token)) return { glob, strong: true, bare: true };
  return undefined;
}

/** A symbol standing first in a chunk: `` `sym` ``, `name()`, `Type.method`, `fn name`. */
export function readSymbolHead(src: string, i: number, end: number): Core | undefined {
  const found = src[i] === "`" ? readTickSymbol(src, i, end) : readSymbol(src, i, end, "none");
  if (!found) return undefined;
  const at = src[i] === "`" ? skipInline(src, i + 1, end) : i;
  const core: Core = { symbol: found.symbol, at, rawStart: i, rawEnd: found.end, strong: false, hasLoc: false };
  if (found.call) core.call = true;
  return core;
}

type FoundSymbol = { symbol: string; end: number; call?: boolean };

function readTickSymbol(src: string, i: number, end: number): FoundSymbol | undefined {
  const close = src.indexOf("`", i + 1);
  if (close === -1 || close >= end) return undefined;
  const inner = readSymbol(src, skipInline(src, i + 1, close), close, "any");
  if (!inner || skipInline(src, inner.end, close) !== close) return undefined;
  return { symbol: inner.symbol, end: close + 1, ...(inner.call ? { call: true } : {}) };
}

/**
 * `bare` says when a lone identifier counts: "any" (in backticks), "code" (after a comma or in
 * parentheses: only camelCase, snake_case or with digits) or "none" (needs `()`, `.`, `::` or a keyword).
 */
function readSymbol(src: string, i: number, end: number, bare: "any" | "code" | "none"): FoundSymbol | undefined {
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
    return method && { symbol: `${receiver[1]}.${method.symbol}`, end: method.end, ...(method.call ? { call: true } : {}) };
  }
  CHAIN.lastIndex = j;
  const chain = CHAIN.exec(src)?.[0];
  if (!chain || CHAIN.lastIndex > end) return undefined;
  let k = CHAIN.lastIndex;
  let call = false;
  if (src[k] === "(") {
    const close = matchParen(src, k, end);
    if (close === -1) return undefined;
    k = close + 1;
    call = true;
  } else {
    if (src[k] === "/" || (src[k] === "." && /\w/.test(src[k + 1] ?? ""))) return undefined;
    const parts = chain.split(CHAIN_SEP);
    if (parts.length > 1 && parts.every((p) => p.length <= 1)) return undefined; // e.g. i.e.
    const codeLike = /[a-z0-9][A-Z]|[A-Za-z0-9]_[A-Za-z0-9]|^_|\d/.test(chain);
    if (parts.length === 1 && !keyword && !(bare === "any" || (bare === "code" && codeLike))) return undefined;
  }
  return call ? { symbol: chain, end: k, call } : { symbol: chain, end: k };
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
export function readFollow(src: string, i: number, end: number): Follow {
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

export function skipInline(src: string, i: number, end: number): number {
  while (i < end && (src[i] === " " || src[i] === "\t")) i++;
  return i;
}

export function skipSpace(src: string, i: number, end: number): number {
  while (i < end && /\s/.test(src[i]!)) i++;
  return i;
}

export function collapse(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
