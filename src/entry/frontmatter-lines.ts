/**
 * Line-level layout of a markdown file's YAML frontmatter: where the block is, which line
 * ending the file uses, and which lines each top-level key owns. Pure text, no YAML parsing
 * beyond decoding a quoted key.
 */
import { parse as parseYaml } from "yaml";

/** One line of a file: its text without the terminator, and the terminator itself. */
export type Line = { content: string; eol: "" | "\n" | "\r\n" };

/** A file split into BOM + lines; joining them back gives the exact original text. */
export type FileLines = {
  /** `"\uFEFF"` when the file starts with a UTF-8 BOM, else `""`. */
  bom: string;
  lines: Line[];
  /** Line ending for inserted lines: the file's first line ending, `"\n"` when it has none. */
  eol: "\n" | "\r\n";
};

/** Where the frontmatter block is: lines `1 .. close-1` are its YAML, `0` and `close` are the markers. */
export type FrontmatterLocation = { kind: "absent" } | { kind: "unterminated" } | { kind: "present"; close: number };

/** The lines one top-level key owns: `line .. last` (inclusive, indices into `FileLines.lines`). */
export type KeyBlock = {
  /** The decoded key (quotes removed). */
  key: string;
  line: number;
  last: number;
  /** The key as written, up to and including its `:` (e.g. `"lastConfirmed":`). */
  keyText: string;
  /** Whitespace between the `:` and an inline value; `""` when the value is not on the key line. */
  gap: string;
  /** Trailing comment on the key line with the whitespace before it (e.g. `  # note`), or `""`. */
  comment: string;
};

export type KeyScan = { ok: true; keys: KeyBlock[] } | { ok: false; reason: string };

export function splitFile(text: string): FileLines {
  const bom = text.startsWith("\uFEFF") ? "\uFEFF" : "";
  const body = text.slice(bom.length);
  const lines: Line[] = [];
  let start = 0;
  while (start < body.length) {
    const nl = body.indexOf("\n", start);
    if (nl === -1) {
      lines.push({ content: body.slice(start), eol: "" });
      break;
    }
    const crlf = nl > start && body[nl - 1] === "\r";
    lines.push({ content: body.slice(start, crlf ? nl - 1 : nl), eol: crlf ? "\r\n" : "\n" });
    start = nl + 1;
  }
  const first = lines.find((line) => line.eol !== "");
  return { bom, lines, eol: first?.eol === "\r\n" ? "\r\n" : "\n" };
}

export function joinFile(file: FileLines): string {
  return file.bom + file.lines.map((line) => line.content + line.eol).join("");
}

const OPEN = /^---[ \t]*$/;
const CLOSE = /^(?:---|\.\.\.)[ \t]*$/;

export function locateFrontmatter(lines: readonly Line[]): FrontmatterLocation {
  const first = lines[0];
  if (first === undefined || !OPEN.test(first.content)) return { kind: "absent" };
  for (let i = 1; i < lines.length; i++) {
    if (CLOSE.test(lines[i]!.content)) return { kind: "present", close: i };
  }
  return { kind: "unterminated" };
}

const isBlank = (text: string): boolean => /^[ \t]*$/.test(text);
const isComment = (text: string): boolean => /^[ \t]*#/.test(text);
const isIndented = (text: string): boolean => /^[ \t]/.test(text);
const isWs = (ch: string | undefined): boolean => ch === " " || ch === "\t";

/**
 * Find every top-level key in lines `from .. to-1` and the lines it owns: its own line, then
 * indented continuation lines, block-sequence items at column 0 under a key with no inline
 * value, and the whole of a block scalar or a multi-line quoted/flow value. Comment and blank
 * lines are owned only when more owned content follows them.
 */
export function scanKeys(lines: readonly Line[], from: number, to: number): KeyScan {
  const keys: KeyBlock[] = [];
  let i = from;
  while (i < to) {
    const text = lines[i]!.content;
    const lineNo = i + 1;
    if (isBlank(text) || isComment(text)) {
      i++;
      continue;
    }
    if (isIndented(text)) return fail(`line ${lineNo} is indented but belongs to no key`);
    const head = parseKeyLine(text);
    if (head === undefined) return fail(`line ${lineNo} is not a top-level \`key: value\` line`);
    const value = classifyValue(text, head.colonEnd);
    let last = i;
    let j = i + 1;
    if (value.open !== undefined) {
      let state: OpenState | undefined = value.open;
      while (state !== undefined && j < to) {
        const next: ScanEnd = continueOpen(state, lines[j]!.content, 0);
        state = next.open;
        last = j++;
      }
      if (state !== undefined) return fail(`the value of key "${head.key}" (line ${lineNo}) never ends`);
    } else if (value.block !== undefined) {
      let indent = value.indent;
      for (; j < to; j++) {
        const next = lines[j]!.content;
        if (isBlank(next)) {
          // Spaces beyond the content indentation are content; with `+` every blank line is.
          if (value.block === "keep" || (indent !== undefined && next.length > indent)) last = j;
        } else if (isIndented(next)) {
          indent ??= /^ */.exec(next)![0].length;
          last = j;
        } else break;
      }
    } else {
      while (j < to) {
        const next = lines[j]!.content;
        if (isBlank(next) || isComment(next)) j++;
        else if (isIndented(next) || (value.empty && /^-(?:[ \t]|$)/.test(next))) last = j++;
        else break;
      }
    }
    keys.push({
      key: head.key,
      line: i,
      last,
      keyText: text.slice(0, head.colonEnd),
      gap: value.empty ? "" : text.slice(head.colonEnd, value.start),
      comment: value.comment,
    });
    i = last + 1;
  }
  return { ok: true, keys };
}

function fail(reason: string): KeyScan {
  return { ok: false, reason };
}

/** Parse `key:` at column 0 (plain, "double" or 'single' quoted); undefined when the line is not a key line. */
export function parseKeyLine(text: string): { key: string; colonEnd: number } | undefined {
  let key: string;
  let after: number;
  const quote = text[0];
  if (quote === '"' || quote === "'") {
    const end = quote === '"' ? endOfDoubleQuoted(text, 1) : endOfSingleQuoted(text, 1);
    if (end === undefined) return undefined;
    const decoded = decodeQuoted(text.slice(0, end));
    if (decoded === undefined) return undefined;
    key = decoded;
    after = end;
    while (isWs(text[after])) after++;
    if (text[after] !== ":") return undefined;
  } else {
    if (/^(?:[\[\]{},#&*!|>%@`]|[-?:](?:[ \t]|$))/.test(text)) return undefined;
    after = findMappingColon(text, 0);
    if (after === -1) return undefined;
    key = text.slice(0, after).replace(/[ \t]+$/, "");
    if (/[ \t]#/.test(key)) return undefined;
  }
  const colonEnd = after + 1;
  if (colonEnd < text.length && !isWs(text[colonEnd])) return undefined;
  return { key, colonEnd };
}

function findMappingColon(text: string, from: number): number {
  for (let at = text.indexOf(":", from); at !== -1; at = text.indexOf(":", at + 1)) {
    if (at + 1 === text.length || isWs(text[at + 1])) return at;
  }
  return -1;
}

function decodeQuoted(token: string): string | undefined {
  if (token.startsWith("'")) return token.slice(1, -1).replaceAll("''", "'");
  try {
    const value: unknown = parseYaml(token);
    return typeof value === "string" ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Index just past the closing `"` of a double-quoted scalar starting before `from`, or undefined. */
function endOfDoubleQuoted(text: string, from: number): number | undefined {
  for (let i = from; i < text.length; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === '"') return i + 1;
  }
  return undefined;
}

function endOfSingleQuoted(text: string, from: number): number | undefined {
  for (let i = from; i < text.length; i++) {
    if (text[i] !== "'") continue;
    if (text[i + 1] === "'") i++;
    else return i + 1;
  }
  return undefined;
}

/** A value still open at the end of a line: inside a quoted scalar or a flow collection. */
type OpenState =
  | { kind: "double" }
  | { kind: "single" }
  | { kind: "flow"; depth: number; quote: "" | "double" | "single"; prev: string };

type ScanEnd = { open?: OpenState; end: number };

type ValueShape = {
  /** Where the inline value starts. */
  start: number;
  /** True when no value starts on the key line (only properties or a comment; the value, if any, is on later lines). */
  empty: boolean;
  comment: string;
  block?: "clip" | "keep";
  /** A block scalar's explicit indentation indicator. */
  indent?: number;
  open?: OpenState;
};

function classifyValue(text: string, colonEnd: number): ValueShape {
  let p = colonEnd;
  while (isWs(text[p])) p++;
  const start = p;
  // Anchors and tags before the value (`&a`, `!!str`): skip them.
  while (text[p] === "&" || text[p] === "!") {
    while (p < text.length && !isWs(text[p])) p++;
    while (isWs(text[p])) p++;
  }
  if (p >= text.length || text[p] === "#") {
    return { start, empty: true, comment: trailingComment(text, commentStart(text, p, colonEnd)) };
  }
  const ch = text[p]!;
  if (ch === "|" || ch === ">") {
    const header = /^[|>](?:[1-9][+-]?|[+-][1-9]?)?(?=[ \t]|$)/.exec(text.slice(p));
    if (header !== null) {
      const end = p + header[0].length;
      const indent = /[1-9]/.exec(header[0])?.[0];
      return {
        start,
        empty: false,
        comment: trailingComment(text, end),
        block: header[0].includes("+") ? "keep" : "clip",
        ...(indent === undefined ? {} : { indent: Number(indent) }),
      };
    }
  }
  let scan: ScanEnd;
  if (ch === '"') scan = continueOpen({ kind: "double" }, text, p + 1);
  else if (ch === "'") scan = continueOpen({ kind: "single" }, text, p + 1);
  else if (ch === "[" || ch === "{") scan = continueOpen({ kind: "flow", depth: 0, quote: "", prev: "" }, text, p);
  else return { start, empty: false, comment: trailingComment(text, commentStart(text, p, colonEnd)) };
  if (scan.open !== undefined) return { start, empty: false, comment: "", open: scan.open };
  return { start, empty: false, comment: trailingComment(text, scan.end) };
}

/**
 * Index of the whitespace run (not before `floor`) that precedes the first ` #` at or after
 * `from`: where a plain scalar's trailing comment starts. The line length when there is none.
 */
function commentStart(text: string, from: number, floor: number): number {
  for (let i = from; i < text.length; i++) {
    if (text[i] === "#" && (i === 0 || isWs(text[i - 1]))) {
      let s = i;
      while (s > floor && isWs(text[s - 1])) s--;
      return s;
    }
  }
  return text.length;
}

/** The comment (with its leading whitespace) after a closed value ending at `end`, or "". */
function trailingComment(text: string, end: number): string {
  const rest = text.slice(end);
  return /^[ \t]*#/.test(rest) ? rest : "";
}

/** Continue scanning an open quoted scalar or flow collection on `text` from `from`. */
function continueOpen(state: OpenState, text: string, from: number): ScanEnd {
  if (state.kind === "double" || state.kind === "single") {
    const end = state.kind === "double" ? endOfDoubleQuoted(text, from) : endOfSingleQuoted(text, from);
    return end === undefined ? { open: state, end: text.length } : { end };
  }
  let { depth, quote, prev } = state;
  for (let i = from; i < text.length; i++) {
    const ch = text[i]!;
    if (quote !== "") {
      const end = quote === "double" ? endOfDoubleQuoted(text, i) : endOfSingleQuoted(text, i);
      if (end === undefined) return { open: { kind: "flow", depth, quote, prev }, end: text.length };
      i = end - 1;
      quote = "";
      prev = '"';
      continue;
    }
    if (isWs(ch)) continue;
    if (ch === "#" && (i === 0 || isWs(text[i - 1]))) break;
    if ((ch === '"' || ch === "'") && (prev === "" || "[{,:?".includes(prev))) {
      quote = ch === '"' ? "double" : "single";
      continue;
    }
    if (ch === "[" || ch === "{") depth++;
    else if (ch === "]" || ch === "}") {
      depth--;
      if (depth === 0) return { end: i + 1 };
    }
    prev = ch;
  }
  return { open: { kind: "flow", depth, quote, prev }, end: text.length };
}
