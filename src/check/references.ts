/** Broken `supersedes` / `supersededBy` / `contradicts` references between entries. */
import { diagnostic, type Diagnostic } from "../entry/diagnostic.js";
import type { Entry } from "../entry/types.js";

export const REFERENCE_KEYS = ["supersedes", "supersededBy", "contradicts"] as const;

/** Entry ids referenced by `key`, accepting a single id or a list. */
export function refsOf(entry: Pick<Entry, "frontmatter">, key: (typeof REFERENCE_KEYS)[number]): string[] {
  const value = entry.frontmatter[key];
  if (typeof value === "string") return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/** Broken and self references; `keyLines` places each problem (a catalogue record carries the lines of these keys). */
export function checkReferences(entries: ReadonlyArray<Pick<Entry, "id" | "path" | "frontmatter"> & { keyLines?: Partial<Record<string, number>> }>, byId: ReadonlyMap<string, unknown>): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const entry of entries) {
    for (const key of REFERENCE_KEYS) {
      for (const ref of refsOf(entry, key)) {
        const at = { line: entry.keyLines?.[key] ?? 1, column: 1 };
        if (ref === entry.id) {
          out.push(diagnostic(entry.path, "reference-self", "error", `\`${key}\` names the entry itself ("${ref}"); expected another entry's id`, at));
        } else if (!byId.has(ref)) {
          out.push(diagnostic(entry.path, "reference-broken", "error", `\`${key}\` names "${ref}", but no entry with that id exists in knowledge/ or knowledge/archive/; expected an existing entry id (file name without .md)`, at));
        }
      }
    }
  }
  return out;
}
