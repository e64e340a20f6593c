/**
 * Where entries are, as one id per entry and one file name per entry requires: an id used by two files, and an active
 * entry whose file name an archived entry of another id already has (decay cannot archive the one, restore cannot
 * bring the other back: a move never overwrites). Shared by the full load and the catalogue's view.
 */
import { diagnostic, type Diagnostic } from "../entry/diagnostic.js";
import type { EntryState } from "../entry/types.js";

type Placed = { id: string; path: string; state: EntryState };

/**
 * Entries by id (the first by path when ids collide), the files of each id claimed more than once, and the problems
 * above, for `entries` in path order. Every file claiming a taken id gets the error (the first too): a pull request
 * that adds a file taking an existing entry's id sorts before it as easily as after, and its own file must fail.
 */
export function placeEntries<T extends Placed>(entries: readonly T[]): { byId: Map<string, T>; duplicates: Map<string, string[]>; diagnostics: Diagnostic[] } {
  const byId = new Map<string, T>();
  const claims = new Map<string, T[]>();
  const diagnostics: Diagnostic[] = [];
  const archivedByName = new Map<string, T>();
  for (const entry of entries) if (entry.state === "archived") archivedByName.set(fileName(entry.path), entry);
  for (const entry of entries) {
    const first = byId.get(entry.id);
    if (first) {
      const list = claims.get(entry.id);
      if (list) list.push(entry);
      else claims.set(entry.id, [first, entry]);
      continue;
    }
    byId.set(entry.id, entry);
    const namesake = entry.state === "active" ? archivedByName.get(fileName(entry.path)) : undefined;
    if (namesake && namesake.id !== entry.id) {
      diagnostics.push(diagnostic(entry.path, "archive-name-taken", "warning", `${namesake.path} (id "${namesake.id}") has this file's name: decay cannot archive this entry, nor restore bring that one back (a move never overwrites); expected distinct file names — rename one of the two`));
    }
  }
  const duplicates = new Map<string, string[]>();
  for (const [id, list] of claims) {
    const paths = list.map((e) => e.path);
    duplicates.set(id, paths);
    for (const entry of list) {
      const others = paths.filter((p) => p !== entry.path).join(", ");
      diagnostics.push(diagnostic(entry.path, "id-duplicate", "error", `id "${id}" is also claimed by ${others}; ids must be unique across knowledge/ and knowledge/archive/ — rename one file or set a distinct \`id\` (until then no copy is injected and no command changes it)`));
    }
  }
  return { byId, duplicates, diagnostics };
}

function fileName(file: string): string {
  return file.slice(file.lastIndexOf("/") + 1);
}
