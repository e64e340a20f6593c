/** Finding an entry by id for a command: found, or not found with the closest ids; why a file of that name does not parse. */
import type { Diagnostic } from "../entry/diagnostic.js";
import { idFromPath } from "../entry/id.js";
import type { EntrySummary } from "../entry/types.js";
import { closest } from "../text/suggest.js";

export type Lookup<E = EntrySummary> = { kind: "found"; entry: E } | { kind: "not-found"; id: string; suggestions: string[] };

/** Find an entry by id; "not found" is a value carrying close ids as suggestions. */
export function lookup<E>(byId: Map<string, E>, id: string): Lookup<E> {
  const entry = byId.get(id);
  if (entry) return { kind: "found", entry };
  const suggestions = closest(id, byId.keys());
  return { kind: "not-found", id, suggestions };
}

/**
 * When no entry has `id` but a file named `<id>.md` exists and does not parse, why (file, line,
 * rule, message) — so that `confirm ID` on a broken entry does not claim there is no such entry.
 */
export function unreadableEntry(loaded: { byId: ReadonlyMap<string, unknown>; diagnostics: readonly Diagnostic[] }, id: string): string | undefined {
  if (loaded.byId.has(id)) return undefined;
  const problem = loaded.diagnostics.find((d) => d.severity === "error" && idFromPath(d.file) === id);
  if (!problem) return undefined;
  return `${problem.file} holds "${id}" but cannot be parsed: ${problem.file}:${problem.line}:${problem.column} ${problem.rule} ${problem.message} — fix it (\`cairn check ${problem.file}\` lists every problem) and retry`;
}


/** When more than one file claims `id`, why a command will not change any of them (which files). */
export function ambiguousEntry(loaded: { duplicates: ReadonlyMap<string, readonly string[]> }, id: string): string | undefined {
  const files = loaded.duplicates.get(id);
  if (!files) return undefined;
  return `id "${id}" is claimed by ${files.length} files (${files.join(", ")}); expected one — rename one file or give it a distinct \`id\` (\`cairn check\` reports id-duplicate), then retry`;
}
