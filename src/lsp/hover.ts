/**
 * Hover on an evidence anchor: the lines it points at now (a symbol's definition, or the cited
 * lines wherever they moved) in a code block with the file's language, its path and range, and
 * any drift; for an anchor that does not resolve, why.
 */
import type { Hover, Position } from "vscode-languageserver";
import { languageOf } from "../anchors/languages.js";
import type { ResolvedAnchor } from "../anchors/types.js";
import { anchoredFile, anchorUnder, targetLines, type AnchorHit } from "./anchor-hit.js";
import { anchorRange, anchorText } from "./positions.js";
import type { OpenEntry, Workspace } from "./workspace.js";

/** Lines shown at most; a longer definition is cut with a note (go to definition shows it all). */
const MAX_LINES = 40;
/** Files listed at most for a glob or a directory. */
const MAX_FILES = 15;

export async function hover(ws: Workspace, open: OpenEntry, position: Position): Promise<Hover | null> {
  const hit = await anchorUnder(ws, open, position);
  if (!hit) return null;
  return { contents: { kind: "markdown", value: await describe(ws, hit) }, range: anchorRange(hit.anchor) };
}

async function describe(ws: Workspace, { anchor, resolved }: AnchorHit): Promise<string> {
  const written = code(anchorText(anchor));
  const problems = resolved.problems.map((p) => `- ${p.severity === "error" ? "error" : "warning"} \`${p.rule}\`: ${p.message}`);
  if (resolved.status === "unchecked") {
    return anchor.path === undefined
      ? `${written} names a symbol but no file, so there is nothing to resolve; write the file too, e.g. \`src/x.ts, ${anchor.symbol ?? "name"}()\``
      : `${written} is a mention in prose that names no file in the repository (not checked)`;
  }
  if (resolved.status !== "resolved") return [`**Unresolved anchor** ${written}`, "", ...problems].join("\n");
  const parts = [resolved.file !== undefined ? await fileBlock(ws, resolved, resolved.file) : fileList(resolved)];
  if (problems.length) parts.push("", ...problems);
  return parts.join("\n");
}

async function fileBlock(ws: Workspace, resolved: ResolvedAnchor, file: string): Promise<string> {
  const where = resolved.repo !== undefined ? `${resolved.repo}:${file}` : file;
  const read = await anchoredFile(ws, resolved, file);
  if ("error" in read) return `**${where}**: cannot show it: ${read.error}`;
  const range = targetLines(resolved) ?? { start: 1, end: Math.min(read.lines.length, MAX_LINES) };
  const symbol = resolved.anchor.symbol !== undefined && resolved.definition ? ` — definition of \`${resolved.anchor.symbol}\`` : "";
  const shown = read.lines.slice(range.start - 1, Math.min(range.end, range.start - 1 + MAX_LINES));
  const more = range.end - range.start + 1 - shown.length;
  const label = targetLines(resolved) ? `${where}:${range.start === range.end ? range.start : `${range.start}-${range.end}`}` : `${where} (${read.lines.length} lines)`;
  return [`**${label}**${symbol}`, "", fenced(shown.join("\n"), fenceLanguage(file)), ...(more > 0 ? [`… ${more} more line${more === 1 ? "" : "s"}`] : [])].join("\n");
}

function fileList(resolved: ResolvedAnchor): string {
  const files = resolved.files;
  const head = `**${code(resolved.anchor.path ?? "")}** matches ${files.length} file${files.length === 1 ? "" : "s"}:`;
  const listed = files.slice(0, MAX_FILES).map((f) => `- ${f}`);
  return [head, "", ...listed, ...(files.length > MAX_FILES ? [`- … ${files.length - MAX_FILES} more`] : [])].join("\n");
}

/** The info string of a code block: the language cairn knows the file in, else its extension. */
function fenceLanguage(file: string): string {
  return languageOf(file) ?? /\.([A-Za-z0-9]+)$/.exec(file)?.[1]?.toLowerCase() ?? "";
}

/** A code block whose fence is longer than any backtick run inside, so code cannot close it early. */
function fenced(text: string, language: string): string {
  const fence = "`".repeat(Math.max(3, longestBacktickRun(text) + 1));
  return `${fence}${language}\n${text}\n${fence}`;
}

/** Inline code that holds any text (backticks included). */
function code(text: string): string {
  const longest = longestBacktickRun(text);
  const ticks = "`".repeat(longest + 1);
  return `${ticks}${longest ? ` ${text} ` : text}${ticks}`;
}

function longestBacktickRun(text: string): number {
  let longest = 0;
  for (const run of text.matchAll(/`+/g)) longest = Math.max(longest, run[0].length);
  return longest;
}
