/** Parse one entry file (raw bytes) into an Entry plus diagnostics. Pure: no I/O. */
import { createHash } from "node:crypto";
import { isMap, isScalar, LineCounter, parseDocument } from "yaml";
import { MAX_EVIDENCE_LINES, parseAnchors } from "./anchors.js";
import { diagnostic, type Diagnostic } from "./diagnostic.js";
import { frontmatterNotEditable } from "./edit.js";
import { FRONTMATTER_FIELDS, KNOWN_KEYS, REQUIRED_KEYS, isIsoDate, type KnownKey } from "./schema.js";
import { splitBody, splitSteps } from "./sections.js";
import { didYouMean } from "../text/suggest.js";
import type { Entry, EntryState } from "./types.js";

export { MAX_ENTRY_BYTES, todayUtc } from "./file-facts.js";
import { MAX_ENTRY_BYTES, todayUtc } from "./file-facts.js";
export { ID_RE, idFromPath } from "./id.js";
import { ID_RE, idFromPath } from "./id.js";
import { firstInvalidUtf8, positionOfByte } from "../text/utf8.js";

export type ParseOptions = {
  /** Path relative to the repository root (used in diagnostics). */
  file: string;
  /** Where the file lives. Default "active". */
  state?: EntryState;
  /** Today's date YYYY-MM-DD (UTC) for the future-date rule. Default: the current UTC date. */
  today?: string;
};

export type ParseResult = {
  /** Present when the file could be read as an entry at all (it may still have errors). */
  entry?: Entry;
  diagnostics: Diagnostic[];
};

export function parseEntry(bytes: Uint8Array, options: ParseOptions): ParseResult {
  const { file } = options;
  const today = options.today ?? todayUtc();
  const diagnostics: Diagnostic[] = [];
  const fail = (rule: string, message: string, line = 1, column = 1): ParseResult => ({
    diagnostics: [diagnostic(file, rule, "error", message, { line, column })],
  });

  if (bytes.byteLength > MAX_ENTRY_BYTES) {
    return fail("file-too-large", `file is ${(bytes.byteLength / 1024 / 1024).toFixed(1)} MB; entries must be under ${MAX_ENTRY_BYTES / 1024} KB of markdown (a finding, evidence and verify steps). It was not parsed.`);
  }
  if (bytes.byteLength === 0) return fail("file-empty", "file is empty; expected YAML frontmatter (lastConfirmed, provenance) followed by a finding, Evidence: and Verify:");
  const utf16 = utf16Kind(bytes);
  if (utf16) {
    return fail("encoding-invalid", `file is UTF-16 (${utf16}) text; expected UTF-8 — re-save it as UTF-8 (in your editor, or \`iconv -f UTF-16 -t UTF-8\`)`);
  }
  const nul = bytes.indexOf(0);
  if (nul !== -1) {
    const pos = positionOfByte(bytes, nul);
    return fail("file-binary", "file contains NUL bytes: it looks binary, not a markdown entry", pos.line, pos.column);
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    const bad = firstInvalidUtf8(bytes);
    const pos = positionOfByte(bytes, bad);
    return fail("encoding-invalid", `file is not valid UTF-8 (invalid byte 0x${(bytes[bad] ?? 0).toString(16)}); save it as UTF-8`, pos.line, pos.column);
  }
  const hash = createHash("sha256").update(bytes).digest("hex");
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const lines = text.split(/\r?\n/);

  // Frontmatter delimiters: a leading `---` line and the next line that is exactly `---` (we report what is wrong first).
  const bareCr = /\r(?!\n)/.exec(text);
  if ((lines[0] ?? "").trimEnd() !== "---") {
    if (bareCr && text.startsWith("---\r")) return failLineEndings(fail, text, bareCr.index);
    return fail("frontmatter-missing", "expected the file to start with a `---` line opening YAML frontmatter (lastConfirmed, provenance)");
  }
  let close = -1;
  for (let i = 1; i < lines.length; i++) {
    const l = (lines[i] ?? "").trimEnd();
    if (l === "---") {
      close = i;
      break;
    }
  }
  if (close === -1 && bareCr) return failLineEndings(fail, text, bareCr.index);
  if (close === -1) return fail("frontmatter-unterminated", "frontmatter opened with `---` on line 1 is never closed; expected a second `---` line after the YAML", 1, 1);

  // The body starts on the line after the closing `---` (the same delimiter lines the YAML is read between).
  const content = text.slice(lineStart(text, close + 1));
  const yamlText = lines.slice(1, close).join("\n");
  const counter = new LineCounter();
  const doc = parseDocument(yamlText, { lineCounter: counter, uniqueKeys: true, prettyErrors: false, strict: true });
  const yamlLine = (offset: number) => {
    const p = counter.linePos(offset);
    return { line: p.line + 1, column: p.col };
  };
  for (const error of doc.errors) {
    const pos = yamlLine(error.pos[0]);
    diagnostics.push(diagnostic(file, "yaml-invalid", "error", `invalid YAML: ${firstLine(error.message)}`, pos));
  }
  if (doc.errors.length) return { diagnostics };

  const contents = doc.contents;
  if (contents !== null && !isMap(contents)) {
    return fail("frontmatter-not-mapping", "frontmatter must be a YAML mapping of keys (e.g. `lastConfirmed: 2026-02-12`), not a list or a scalar", 2, 1);
  }
  let frontmatter: Record<string, unknown>;
  try {
    frontmatter = (contents ? doc.toJS() : {}) as Record<string, unknown>;
  } catch (error) {
    // The yaml library refuses aliases that expand too far ("billion laughs"): a hostile entry, reported like any
    // invalid YAML. Thrown, it failed `cairn diff` on the pull request and silenced the language server's diagnostics.
    const alias = /^[^#\n]*[\s[{,:-]\*[^\s,\]}]/m.exec(yamlText);
    return fail("yaml-invalid", `invalid YAML: ${firstLine((error as Error).message)}; write the values out instead of \`*alias\` references`, alias ? yamlLine(alias.index).line : 2, 1);
  }
  const keyPos = new Map<string, { line: number; column: number }>();
  for (const pair of contents?.items ?? []) {
    const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
    keyPos.set(key, isScalar(pair.key) && pair.key.range ? yamlLine(pair.key.range[0]) : { line: 2, column: 1 });
  }
  validateFrontmatter(file, frontmatter, keyPos, today, diagnostics);
  // Moved back from the archive by hand (git mv, a file manager): restore would have removed these keys.
  if ((options.state ?? "active") === "active") {
    const key = frontmatter.archived !== undefined ? "archived" : frontmatter.archivedReason !== undefined ? "archivedReason" : undefined;
    if (key) diagnostics.push(diagnostic(file, "archived-key-active", "warning", `\`${key}\` is set but the entry lives in the active directory (moved back from the archive by hand?); expected no archived keys on an active entry — remove them, or use \`cairn restore\`, which does`, keyPos.get(key) ?? { line: 2, column: 1 }));
  }
  // What confirm, record and decay write goes through the surgical editor: a layout it refuses (a flow mapping,
  // indented keys, anchors) would make every lifecycle change of this entry fail, and decay could never archive it.
  const notEditable = frontmatterNotEditable(lines.slice(1, close), doc);
  if (notEditable !== undefined) {
    diagnostics.push(diagnostic(file, "frontmatter-not-editable", "error", `cairn cannot edit this frontmatter: ${notEditable}. confirm, record and decay change these lines, so it is withheld from prompts until fixed; expected one top-level \`key: value\` line per key (as \`cairn new\` writes)`, { line: 2, column: 1 }));
  }

  // Body.
  const bodyLines = content.split(/\r?\n/);
  const bodyFirstLine = lines.length - bodyLines.length + 1;
  const parts = splitBody(content, bodyLines, bodyFirstLine);
  let lastLine = lines.length;
  while (lastLine > bodyFirstLine && !(lines[lastLine - 1] ?? "").trim()) lastLine--;
  const endPos = { line: Math.max(bodyFirstLine, lastLine), column: 1 };
  const { finding, evidence, verify, fix } = parts.sections;
  if (!finding) diagnostics.push(diagnostic(file, "finding-missing", "error", "no finding: expected 1–3 sentences stating the pattern before `Evidence:`", { line: bodyFirstLine, column: 1 }));
  if (!evidence) diagnostics.push(diagnostic(file, "evidence-missing", "error", "no evidence: expected a paragraph starting `Evidence:` (or a `## Evidence` section) with at least one anchor such as `src/a.ts:10-20, fn()`", endPos));
  if (!verify) diagnostics.push(diagnostic(file, "verify-missing", "error", "no verification steps: expected a paragraph starting `Verify:` (or a `## Verify` section) with 1–3 steps", endPos));
  for (const r of parts.repeated) diagnostics.push(diagnostic(file, "section-repeated", "warning", `a second ${r.kind} section; only the first is used`, { line: r.line, column: 1 }));
  const anchors = evidence ? parseAnchors(evidence.text, evidence.line, evidence.column) : [];
  if (evidence && anchors.length === 0) {
    diagnostics.push(diagnostic(file, "evidence-no-anchor", "error", "evidence has no anchor: expected a repo-relative path or glob, optionally with :line or :start-end and a symbol, e.g. `src/auth.ts:47-52, handleRequest()`", evidence));
  }
  if (anchors.length > MAX_EVIDENCE_LINES) {
    diagnostics.push(diagnostic(file, "evidence-too-many", "warning", `${anchors.length} evidence anchors; inject shows an agent only the first ${MAX_EVIDENCE_LINES}: expected the few places that show the pattern`, evidence ?? endPos));
  }
  const steps = verify ? splitSteps(verify.text) : [];
  if (steps.length > 3) diagnostics.push(diagnostic(file, "verify-too-many", "warning", `${steps.length} verification steps; expected 1–3 focused steps`, verify ?? endPos));
  if (finding) {
    const sentences = finding.text.split(/(?<=[.!?])\s+(?=[A-Z`])/).filter((s) => s.trim()).length;
    if (sentences > 3 || finding.text.length > 800) {
      diagnostics.push(diagnostic(file, "finding-too-long", "warning", `the finding has ${sentences} sentences / ${finding.text.length} characters; expected a 1–3 sentence generalised heuristic`, finding));
    }
  }

  const fileId = idFromPath(file);
  const id = typeof frontmatter.id === "string" && ID_RE.test(frontmatter.id) ? frontmatter.id : fileId;
  if (!ID_RE.test(fileId)) {
    diagnostics.push(diagnostic(file, "filename-invalid", "error", `file name "${fileId}.md" is not a slug; expected letters, digits, '-', '_' or '.', starting with a letter or digit and without '..' (e.g. auth-middleware-swallows-ctx-cancel.md)`));
  }
  if (parts.title !== undefined && frontmatter.title === undefined) frontmatter.title = parts.title;
  const entry: Entry = {
    id,
    path: file,
    state: options.state ?? "active",
    frontmatter,
    finding: { text: finding?.text ?? "", line: finding?.line ?? bodyFirstLine },
    ...(fix ? { fix: { text: fix.text, line: fix.line } } : {}),
    evidence: { text: evidence?.text ?? "", line: evidence?.line ?? bodyFirstLine, anchors },
    verify: { text: verify?.text ?? "", line: verify?.line ?? bodyFirstLine, steps },
    hash,
    keyLines: Object.fromEntries([...keyPos].map(([key, pos]) => [key, pos.line])),
  };
  return { entry, diagnostics };
}

function validateFrontmatter(
  file: string,
  fm: Record<string, unknown>,
  keyPos: Map<string, { line: number; column: number }>,
  today: string,
  out: Diagnostic[],
): void {
  for (const key of REQUIRED_KEYS) {
    if (!(key in fm)) {
      out.push(diagnostic(file, "frontmatter-required", "error", `missing required key \`${key}\`; expected e.g. \`${key === "lastConfirmed" ? "lastConfirmed: 2026-02-12" : "provenance: independent"}\``, { line: 2, column: 1 }));
    }
  }
  for (const [key, value] of Object.entries(fm)) {
    const pos = keyPos.get(key) ?? { line: 2, column: 1 };
    if (!KNOWN_KEYS.has(key)) {
      out.push(diagnostic(file, "frontmatter-unknown-key", "warning", `unknown key \`${key}\` is kept but not understood.${didYouMean(key, KNOWN_KEYS, (k) => `\`${k}\``)} Known keys: ${[...KNOWN_KEYS].join(", ")}`, pos));
      continue;
    }
    const result = FRONTMATTER_FIELDS[key as KnownKey].safeParse(value);
    if (!result.success) {
      const shown = value instanceof Date ? value.toISOString() : JSON.stringify(value);
      out.push(diagnostic(file, "frontmatter-invalid", "error", `\`${key}\`: ${result.error.issues[0]?.message ?? "invalid value"} (got ${shown})`, pos));
      continue;
    }
    if ((key === "lastConfirmed" || key === "created" || key === "archived") && typeof value === "string" && isIsoDate(value) && value > today) {
      out.push(diagnostic(file, "date-in-future", "error", `\`${key}\` is ${value}, after today (${today} UTC); expected a date that has happened`, pos));
    }
  }
}

/** A bare-CR (classic Mac OS) file reads as one long line: say so instead of "frontmatter missing". */
function failLineEndings(fail: (rule: string, message: string, line?: number, column?: number) => ParseResult, text: string, at: number): ParseResult {
  const before = text.slice(0, at);
  const line = before.split("\n").length;
  const column = at - before.lastIndexOf("\n");
  return fail("line-endings", "lines end with a bare CR (\\r, classic Mac OS); expected LF or CRLF line endings — convert the file (your editor's line-ending setting, or `dos2unix -c mac FILE`)", line, column);
}

/**
 * "little-endian" / "big-endian" when `bytes` look like UTF-16 text: a UTF-16 byte-order mark, or
 * (without one) NUL bytes in every other position, as ASCII text in UTF-16 has. Undefined otherwise.
 */
function utf16Kind(bytes: Uint8Array): "little-endian" | "big-endian" | undefined {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return "little-endian";
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return "big-endian";
  const sample = Math.min(bytes.byteLength - (bytes.byteLength % 2), 512);
  if (sample < 8) return undefined;
  let evenNul = 0;
  let oddNul = 0;
  for (let i = 0; i < sample; i++) if (bytes[i] === 0) i % 2 === 0 ? evenNul++ : oddNul++;
  const pairs = sample / 2;
  if (oddNul >= pairs * 0.9 && evenNul === 0) return "little-endian";
  if (evenNul >= pairs * 0.9 && oddNul === 0) return "big-endian";
  return undefined;
}

/** Offset of the start of 0-based line `line` in `text` (LF or CRLF endings), or its length past the last line. */
function lineStart(text: string, line: number): number {
  let at = 0;
  for (let i = 0; i < line; i++) {
    const nl = text.indexOf("\n", at);
    if (nl === -1) return text.length;
    at = nl + 1;
  }
  return at;
}

function firstLine(message: string): string {
  return message.split("\n")[0] ?? message;
}
