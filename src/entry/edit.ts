/**
 * Surgical frontmatter edits: change only the lines a key owns, leave every other byte (other
 * keys, order, comments, quoting, body, line endings, BOM) exactly as it was.
 *
 * Rules:
 * - `set` on an existing key replaces the key's owned lines with one `key: value` line. The key
 *   is kept as written (quoting, spacing before `:`), as is the whitespace after `:` and a
 *   trailing comment on the key line (`key: old  # note` -> `key: new  # note`). Comment
 *   lines inside a multi-line value are part of that value and go with it.
 * - `set` is a no-op (`changed: false`, nothing rewritten) when the key already parses to the
 *   same value, whatever its formatting.
 * - `set` on a missing key inserts `key: value` right after the last line owned by the last
 *   top-level key, so comments and blank lines that end the block stay last; with no keys it
 *   goes just before the closing marker. With no frontmatter at all, a block is created at the
 *   top of the file (after a BOM). Inserted lines use the file's first line ending.
 * - `remove` deletes the key's owned lines; comments above it and comment or blank lines after
 *   it stay. If those leftover lines would then become content of a block scalar above (an
 *   indented comment right under `key: |` content), the removal is refused.
 * - Refused (`ok: false`), never guessed: invalid YAML, duplicate top-level keys, frontmatter
 *   that is not a mapping, an unterminated block, a bare CR in the frontmatter, a layout whose
 *   key lines or value extents disagree with the YAML parser, and any edit whose result would
 *   not parse to exactly the expected mapping (e.g. removing an anchor another key aliases).
 */
import { isDeepStrictEqual } from "node:util";
import { type Document, isCollection, isMap, isPair, parseDocument, visit } from "yaml";
import {
  type FileLines,
  type KeyBlock,
  type Line,
  joinFile,
  locateFrontmatter,
  scanKeys,
  splitFile,
} from "./frontmatter-lines.js";
import { type FrontmatterValue, formatKey, formatValue } from "./frontmatter-value.js";

export type { FrontmatterValue } from "./frontmatter-value.js";

export type FrontmatterEdit =
  | { op: "set"; key: string; value: FrontmatterValue }
  | { op: "remove"; key: string };

export type EditResult = { ok: true; text: string; changed: boolean } | { ok: false; reason: string };

/** Apply `edits` in order to the frontmatter of `text` (a whole markdown file). Pure: no I/O. */
export function editFrontmatter(text: string, edits: readonly FrontmatterEdit[]): EditResult {
  let current = text;
  for (const edit of edits) {
    const result = applyOne(current, edit);
    if (!result.ok) return { ok: false, reason: `${describe(edit)}: ${result.reason}` };
    current = result.text;
  }
  return { ok: true, text: current, changed: current !== text };
}

function describe(edit: FrontmatterEdit): string {
  return `cannot ${edit.op} frontmatter key ${JSON.stringify(edit.key)}`;
}

type Step = { ok: true; text: string } | { ok: false; reason: string };

/** The parsed frontmatter with its line layout, after checking both agree. */
type Analysis = { keys: KeyBlock[]; data: Record<string, unknown> };

function applyOne(text: string, edit: FrontmatterEdit): Step {
  if (typeof edit.key !== "string" || edit.key === "") return refuse("the key must be a non-empty string");
  let formatted: string | undefined;
  if (edit.op === "set") {
    formatted = formatValue(edit.value);
    if (formatted === undefined) {
      return refuse(`unsupported value ${String(edit.value)}; expected a string, finite number, boolean or string[]`);
    }
  }
  const file = splitFile(text);
  const location = locateFrontmatter(file.lines);
  if (location.kind === "unterminated") {
    return refuse("the frontmatter starting with `---` on line 1 has no closing `---` or `...` line");
  }
  if (location.kind === "absent") {
    if (formatted === undefined) return { ok: true, text };
    const eol = file.eol;
    const block: Line[] = [
      { content: "---", eol },
      { content: `${formatKey(edit.key)}: ${formatted}`, eol },
      { content: "---", eol },
    ];
    return verify({ ...file, lines: [...block, ...file.lines] }, edit, {});
  }
  const analysis = analyse(file, location.close);
  if ("reason" in analysis) return analysis;
  const { keys, data } = analysis;
  const block = keys.find((candidate) => candidate.key === edit.key);
  const lines = [...file.lines];
  if (edit.op === "remove") {
    if (block === undefined) return { ok: true, text };
    lines.splice(block.line, block.last - block.line + 1);
  } else if (block !== undefined) {
    if (Object.hasOwn(data, edit.key) && isDeepStrictEqual(data[edit.key], edit.value)) return { ok: true, text };
    const gap = block.gap === "" ? " " : block.gap;
    const replacement: Line = { content: `${block.keyText}${gap}${formatted}${block.comment}`, eol: lines[block.line]!.eol };
    lines.splice(block.line, block.last - block.line + 1, replacement);
  } else {
    const lastKey = keys.at(-1);
    const at = lastKey === undefined ? location.close : lastKey.last + 1;
    lines.splice(at, 0, { content: `${formatKey(edit.key)}: ${formatted}`, eol: file.eol });
  }
  return verify({ ...file, lines }, edit, data);
}

function refuse(reason: string): { ok: false; reason: string } {
  return { ok: false, reason };
}

/** Parse the frontmatter with `yaml`, scan its line layout, and check that the two agree. */
function analyse(file: FileLines, close: number): Analysis | { ok: false; reason: string } {
  const yamlLines = file.lines.slice(1, close);
  const crAt = yamlLines.findIndex((line) => line.content.includes("\r"));
  if (crAt !== -1) return refuse(`line ${crAt + 2} contains a bare carriage return; expected LF or CRLF line endings`);
  const source = yamlLines.map((line) => line.content + line.eol).join("");
  const doc = parseYaml(source);
  const layout = agree(file, close, doc, lineStarts(yamlLines));
  if ("reason" in layout) return layout;
  const data = toPlain(doc);
  if (data === undefined) return refuse("the frontmatter cannot be read as plain data (e.g. an unresolved alias)");
  return { keys: layout.keys, data };
}

/**
 * Why cairn could not edit this frontmatter, or undefined when it can: the parser's own reading of an entry
 * (`yamlLines`, the lines between the `---` markers without line endings, and `doc`, parsed from them joined by
 * "\n"), so `check` reports an entry that `confirm`, `record` and `decay` would have to refuse, without a second parse.
 * Stricter than one edit: YAML anchors and aliases are refused outright, as an edit of an anchored key breaks them.
 */
export function frontmatterNotEditable(yamlLines: readonly string[], doc: Document.Parsed): string | undefined {
  // The editor refuses a bare carriage return before anything else (the parser's lines keep it: they split on \r?\n).
  const crAt = yamlLines.findIndex((line) => line.includes("\r"));
  if (crAt !== -1) return `line ${crAt + 2} contains a bare carriage return; expected LF or CRLF line endings`;
  const lines: Line[] = ["---", ...yamlLines, "---"].map((content) => ({ content, eol: "\n" }));
  const analysis = agree({ bom: "", lines, eol: "\n" }, lines.length - 1, doc, lineStarts(lines.slice(1, -1)));
  if ("reason" in analysis) return analysis.reason;
  // An alias is written `*name`: a frontmatter without a `*` has none (the visit costs ~5 µs an entry, 50 ms at 10k).
  let alias = false;
  if (yamlLines.some((line) => line.includes("*"))) visit(doc, {
    Alias: () => {
      alias = true;
      return visit.BREAK;
    },
  });
  return alias ? "it uses YAML anchors and aliases (`&name` / `*name`), which an edit of the anchored key would break; write each value out" : undefined;
}

/** Check that the parsed document and the scanned line layout agree on every key and the lines its value owns. */
function agree(file: FileLines, close: number, doc: Document.Parsed, starts: readonly number[]): { keys: KeyBlock[] } | { ok: false; reason: string } {
  const scan = scanKeys(file.lines, 1, close);
  if (scan.ok) {
    const duplicate = findDuplicate(scan.keys);
    if (duplicate !== undefined) return refuse(duplicate);
  }
  const lineOf = (offset: number): number => upperBound(starts, offset);
  const firstError = doc.errors[0];
  if (firstError !== undefined) {
    const line = lineOf(firstError.pos[0]) + 1;
    return refuse(`the frontmatter is not valid YAML (line ${line}): ${firstError.message}`);
  }
  if (doc.contents !== null && !isMap(doc.contents)) {
    return refuse("the frontmatter is not a mapping of `key: value` lines");
  }
  if (!scan.ok) return refuse(`cannot tell which lines each key owns: ${scan.reason}`);
  // lineOf maps an offset in the YAML source to an index into file.lines (the YAML starts at line index 1).
  const pairs = isMap(doc.contents) ? doc.contents.items : [];
  if (pairs.length !== scan.keys.length) {
    return refuse(`found ${scan.keys.length} top-level key lines but YAML reads ${pairs.length} keys`);
  }
  for (const [index, pair] of pairs.entries()) {
    const block = scan.keys[index]!;
    const keyNode = pair.key as { range?: [number, number, number]; value?: unknown } | null;
    const keyLine = keyNode?.range === undefined ? -1 : lineOf(keyNode.range[0]);
    const keyMatches = typeof keyNode?.value !== "string" || keyNode.value === block.key;
    if (keyLine !== block.line || !keyMatches) {
      return refuse(`line ${block.line + 1} looks like key "${block.key}" but YAML reads the keys differently`);
    }
    const end = contentEnd(pair.value);
    if (end !== undefined) {
      const valueLine = lineOf(end - 1);
      if (valueLine < block.line || valueLine > block.last) {
        return refuse(`cannot bound the value of key "${block.key}" (line ${block.line + 1}) to the lines it owns`);
      }
    }
  }
  return { keys: scan.keys };
}

/**
 * Offset just past the last character of a value's content. A block collection's own range
 * also covers comments after its last item, so descend into that item instead.
 */
function contentEnd(node: unknown): number | undefined {
  if (isPair(node)) return contentEnd(node.value) ?? contentEnd(node.key);
  if (isCollection(node) && !node.flow) return contentEnd(node.items.at(-1));
  const range = (node as { range?: [number, number, number] } | null | undefined)?.range;
  return range !== undefined && range[1] > range[0] ? range[1] : undefined;
}

function findDuplicate(keys: readonly KeyBlock[]): string | undefined {
  const seen = new Map<string, number>();
  for (const block of keys) {
    const first = seen.get(block.key);
    if (first !== undefined) {
      return `key "${block.key}" appears more than once (lines ${first + 1} and ${block.line + 1}); expected each top-level key once`;
    }
    seen.set(block.key, block.line);
  }
  return undefined;
}

/** Offsets (within the frontmatter YAML) where each of its lines starts. */
function lineStarts(lines: readonly Line[]): number[] {
  const starts: number[] = [];
  let offset = 0;
  for (const line of lines) {
    starts.push(offset);
    offset += line.content.length + line.eol.length;
  }
  return starts;
}

/** Number of entries in sorted `values` that are <= `target`. */
function upperBound(values: readonly number[], target: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (values[mid]! <= target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Recently parsed frontmatter: a multi-edit call re-reads the text its previous edit just verified. Documents are never mutated. */
const recent = new Map<string, Document.Parsed>();

function parseYaml(source: string): Document.Parsed {
  const cached = recent.get(source);
  if (cached !== undefined) return cached;
  const doc = parseDocument(source, { prettyErrors: false });
  if (recent.size >= 4) recent.delete(recent.keys().next().value!);
  recent.set(source, doc);
  return doc;
}

/** The document as a plain object (`{}` when empty), or undefined when aliases cannot be resolved. */
function toPlain(doc: Document.Parsed): Record<string, unknown> | undefined {
  try {
    const value: unknown = doc.toJS();
    return (value ?? {}) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** Safety net: the edited frontmatter must parse to the old mapping with exactly this edit applied. */
function verify(file: FileLines, edit: FrontmatterEdit, before: Record<string, unknown>): Step {
  const text = joinFile(file);
  const location = locateFrontmatter(file.lines);
  if (location.kind !== "present") return refuse("internal check failed: the edited file has no frontmatter block");
  const source = file.lines
    .slice(1, location.close)
    .map((line) => line.content + line.eol)
    .join("");
  const doc = parseYaml(source);
  const expected: Record<string, unknown> = { ...before };
  if (edit.op === "set") expected[edit.key] = edit.value;
  else delete expected[edit.key];
  const actual = doc.errors.length === 0 ? toPlain(doc) : undefined;
  if (!isDeepStrictEqual(actual, expected)) {
    return refuse(
      "the edit would change how other frontmatter lines parse (an alias to this key's anchor, or comment lines after it that would join a block scalar above it)",
    );
  }
  return { ok: true, text };
}
