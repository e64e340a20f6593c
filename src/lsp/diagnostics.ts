/** cairn diagnostics as LSP diagnostics: a range in the buffer, severity, `code` = rule id, `source: "cairn"`. */
import type { Diagnostic as LspDiagnostic } from "vscode-languageserver";
import type { Diagnostic } from "../entry/diagnostic.js";
import type { Entry } from "../entry/types.js";
import { anchorText, problemRange, splitLines } from "./positions.js";

const ERROR = 1;
const WARNING = 2;

/** `entry` (the buffer's parse) lets an anchor's problem cover the whole anchor as written. */
export function toLspDiagnostics(text: string, entry: Entry | undefined, list: readonly Diagnostic[]): LspDiagnostic[] {
  const lines = splitLines(text);
  return list.map((d) => {
    const anchor = d.rule.startsWith("anchor-") ? entry?.evidence.anchors.find((a) => a.line === d.line && a.column === d.column) : undefined;
    return {
      range: problemRange(lines, d.line, d.column, anchor ? anchorText(anchor).length : undefined),
      severity: d.severity === "error" ? ERROR : WARNING,
      code: d.rule,
      source: "cairn",
      message: d.message,
    };
  });
}
