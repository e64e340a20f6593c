/**
 * Where entries are, as one id per entry and one file name per entry requires: an id used by two files, and an active
 * entry whose file name an archived entry of another id already has (decay cannot archive the one, restore cannot
 * bring the other back: a move never overwrites). Shared by the full load and the catalogue's view.
 */
import { diagnostic, type Diagnostic } from "../entry/diagnostic.js";
import type { EntryState } from "../entry/types.js";

type Placed = { id: string; path: string; state: EntryState };

/** Entries by id (the first by path when ids collide) and the problems above, for `entries` in path order. */
export function placeEntries<T extends Placed>(entries: readonly T[]): { byId: Map<string, T>; diagnostics: Diagnostic[] } {
  const byId = new Map<string, T>();
  const diagnostics: Diagnostic[] = [];
  const archivedByName = new Map<string, T>();
  for (const entry of entries) if (entry.state === "archived") archivedByName.set(fileName(entry.path), entry);
  for (const entry of entries) {
    const first = byId.get(entry.id);
    if (first) {
      diagnostics.push(diagnostic(entry.path, "id-duplicate", "error", `id "${entry.id}" is already used by ${first.path}; ids must be unique across knowledge/ and knowledge/archive/ — rename one file or set a distinct \`id\``));
      continue;
    }
    byId.set(entry.id, entry);
    const namesake = entry.state === "active" ? archivedByName.get(fileName(entry.path)) : undefined;
    if (namesake && namesake.id !== entry.id) {
      diagnostics.push(diagnostic(entry.path, "archive-name-taken", "warning", `${namesake.path} (id "${namesake.id}") has this file's name: decay cannot archive this entry, nor restore bring that one back (a move never overwrites); expected distinct file names — rename one of the two`));
    }
  }
  return { byId, diagnostics };
}

function fileName(file: string): string {
  return file.slice(file.lastIndexOf("/") + 1);
}
