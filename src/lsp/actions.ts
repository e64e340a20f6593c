/**
 * Code actions: the edits of `cairn check --fix` (src/anchors/fix.ts) as edits of the buffer — a
 * quick fix per drifted anchor (moved line range, renamed path) and a source action that fixes
 * every anchor of the file. Only the anchor text changes, exactly as `--fix` writes it; nothing is
 * written to disk (saving the buffer is the user's edit).
 */
import type { CodeAction, CodeActionParams, Diagnostic as LspDiagnostic, Range, TextEdit } from "vscode-languageserver";
import { resolveEntryAnchors } from "../anchors/entry.js";
import { planAnchorEdits, type AnchorEdit } from "../anchors/fix.js";
import { anchorRange, splitLines } from "./positions.js";
import type { OpenEntry, Workspace } from "./workspace.js";

/** The kind of the "fix every anchor in this file" action (`source.fixAll` clients run on save when asked to). */
export const FIX_ALL_KIND = "source.fixAll.cairn";
const QUICK_FIX = "quickfix";
const FIXABLE = new Set(["anchor-moved", "anchor-renamed"]);

export async function codeActions(ws: Workspace, open: OpenEntry, params: Pick<CodeActionParams, "range" | "context">): Promise<CodeAction[]> {
  const { entry } = ws.parse(open);
  if (!entry || !entry.evidence.anchors.length) return [];
  const wants = (kind: string) => !params.context.only || params.context.only.some((k) => kind === k || kind.startsWith(`${k}.`));
  if (!wants(QUICK_FIX) && !wants(FIX_ALL_KIND)) return [];
  const lines = splitLines(open.text);
  const resolved = await resolveEntryAnchors(ws.generation().resolver, entry);
  const actions: CodeAction[] = [];
  if (wants(QUICK_FIX)) {
    for (const r of resolved) {
      const edits = planAnchorEdits(entry.path, [r]).filter((e) => stillThere(lines, e));
      const at = anchorRange(r.anchor);
      if (!edits.length || !overlaps(at, params.range)) continue;
      const fixes = params.context.diagnostics.filter((d) => FIXABLE.has(String(d.code)) && d.range.start.line === at.start.line && d.range.start.character === at.start.character);
      actions.push(action(`Update anchor: ${edits.map((e) => `${e.from} → ${e.to}`).join(", ")}`, QUICK_FIX, open.uri, edits, fixes, true));
    }
  }
  if (wants(FIX_ALL_KIND)) {
    const edits = planAnchorEdits(entry.path, resolved).filter((e) => stillThere(lines, e));
    const anchors = new Set(edits.map((e) => e.anchor)).size;
    if (edits.length) actions.push(action(`Fix ${anchors === 1 ? "the drifted anchor" : `all ${anchors} drifted anchors`} in this file (cairn check --fix)`, FIX_ALL_KIND, open.uri, edits, [], false));
  }
  return actions;
}

function action(title: string, kind: string, uri: string, edits: AnchorEdit[], diagnostics: LspDiagnostic[], preferred: boolean): CodeAction {
  return {
    title,
    kind,
    ...(diagnostics.length ? { diagnostics } : {}),
    ...(preferred ? { isPreferred: true } : {}),
    edit: { changes: { [uri]: edits.map(textEdit) } },
  };
}

export function textEdit(edit: AnchorEdit): TextEdit {
  const start = { line: edit.line - 1, character: edit.column - 1 };
  return { range: { start, end: { line: start.line, character: start.character + edit.from.length } }, newText: edit.to };
}

/** The buffer still reads `from` where the edit goes (what `applyAnchorEdits` insists on before writing). */
function stillThere(lines: readonly string[], edit: AnchorEdit): boolean {
  return lines[edit.line - 1]?.slice(edit.column - 1, edit.column - 1 + edit.from.length) === edit.from;
}

function overlaps(a: Range, b: Range): boolean {
  const before = (x: Range["start"], y: Range["start"]) => x.line < y.line || (x.line === y.line && x.character < y.character);
  return !before(a.end, b.start) && !before(b.end, a.start);
}
