/**
 * Inline disable comments in an entry: `<!-- cairn-disable anchor-unresolved -->` (one or more rule
 * ids, separated by spaces or commas) or `<!-- cairn-disable -->` (every rule that may be disabled
 * inline). They apply to the whole entry, like ESLint's `/* eslint-disable *\/` at the top of a file.
 * Rules that guard injection can never be disabled from inside the entry they guard (see rules/types.ts `inline`).
 */
import { createLineIndex } from "./sanitize/position.js";

export type Directive = {
  /** 1-based position of the comment. */
  line: number;
  column: number;
  /** Rule ids named; empty for a bare `cairn-disable`, which means every inline-disableable rule. */
  rules: string[];
};

/** One line, bounded length: the scan stays linear on hostile input (no unbounded search for `-->`). */
const DIRECTIVE = /<!--[ \t]*cairn-disable(?![\w-])([^\n\r>]{0,400}?)-->/g;

export function findDirectives(text: string): Directive[] {
  if (!text.includes("cairn-disable")) return [];
  const at = createLineIndex(text);
  const out: Directive[] = [];
  DIRECTIVE.lastIndex = 0;
  for (let m = DIRECTIVE.exec(text); m; m = DIRECTIVE.exec(text)) {
    const rules = (m[1] ?? "").split(/[\s,]+/).filter(Boolean);
    out.push({ ...at(m.index), rules });
  }
  return out;
}
