/**
 * `cairn check --fix`: surgical anchor edits. Only the anchor text changes — the line location
 * (`:52-61` → `:92-101`, in the style it was written) or the path of a renamed file — and every
 * other byte of the entry stays as it was (like src/entry/edit.ts does for frontmatter).
 * Planning is pure; applying refuses when the file no longer holds the expected text.
 */
import type { ResolvedAnchor } from "./types.js";
import type { AnchorEdit } from "../types/check.js";

export type { AnchorEdit } from "../types/check.js";

/** The edits that repair `resolved` anchors of one entry file (moved lines, renamed paths). */
export function planAnchorEdits(file: string, resolved: readonly ResolvedAnchor[]): AnchorEdit[] {
  const edits: AnchorEdit[] = [];
  for (const r of resolved) {
    const { anchor } = r;
    for (const p of r.problems) {
      if (!p.fix || (p.rule !== "anchor-moved" && p.rule !== "anchor-renamed")) continue;
      const span = p.fix.path !== undefined ? anchor.spans?.path : anchor.spans?.loc;
      if (!span || anchor.path === undefined) continue;
      const to = p.fix.path !== undefined ? renamePath(span.text, anchor.path, p.fix.path) : p.fix.range ? relocate(span.text, p.fix.range) : undefined;
      if (to === undefined || to === span.text) continue;
      edits.push({ file, line: span.line, column: span.column, from: span.text, to, rule: p.rule, anchor: anchor.raw });
    }
  }
  return dedupe(edits);
}

/** The path as written with its `path` part replaced: `./old/a.ts` → `./new/a.ts`, `repo:old/` → `repo:new/`. */
function renamePath(written: string, path: string, renamed: string): string | undefined {
  const slash = written.endsWith("/") && !path.endsWith("/") ? "/" : "";
  const body = slash ? written.slice(0, -1) : written;
  if (!body.endsWith(path)) return undefined;
  const trailing = written.endsWith("/") && !renamed.endsWith("/") ? "/" : "";
  return `${body.slice(0, body.length - path.length)}${renamed}${slash || trailing}`;
}

/** A location as written with new line numbers: `:52-61` → `:92-101`, `#L52-L61` → `#L92-L101`, `:52` → `:92` (one line stays one line). */
function relocate(written: string, range: { start: number; end: number }): string | undefined {
  const m = /^(\D*?)(\d+)(?:(\s*(?:-|–|to)\s*L?)(\d+))?([\s\S]*)$/.exec(written);
  if (!m) return undefined;
  const [, before = "", , dash, end, after = ""] = m;
  return `${before}${range.start}${dash !== undefined && end !== undefined ? `${dash}${range.end}` : ""}${after}`;
}

function dedupe(edits: AnchorEdit[]): AnchorEdit[] {
  const seen = new Set<string>();
  return edits.filter((e) => {
    const key = `${e.line}:${e.column}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export type ApplyResult = { ok: true; text: string } | { ok: false; reason: string };

/** Apply edits to the file's text; refuses (changing nothing) when any edit's `from` is not where it should be. */
export function applyAnchorEdits(text: string, edits: readonly AnchorEdit[]): ApplyResult {
  const bom = text.startsWith("\uFEFF") ? "\uFEFF" : "";
  const body = bom ? text.slice(1) : text;
  const parts = body.split(/(\r?\n)/);
  const sorted = [...edits].sort((a, b) => b.line - a.line || b.column - a.column);
  for (const edit of sorted) {
    const index = (edit.line - 1) * 2;
    const line = parts[index];
    if (line === undefined || line.slice(edit.column - 1, edit.column - 1 + edit.from.length) !== edit.from) {
      return { ok: false, reason: `line ${edit.line}, column ${edit.column} no longer reads \`${edit.from}\` (the file changed since it was checked)` };
    }
    parts[index] = line.slice(0, edit.column - 1) + edit.to + line.slice(edit.column - 1 + edit.from.length);
  }
  return { ok: true, text: bom + parts.join("") };
}
