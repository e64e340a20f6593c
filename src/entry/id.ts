/**
 * What an entry id may be: a file-name slug (letters, digits, `.`, `_`, `-`), never a path, and never two dots in a
 * row. One rule for every place an id names a file: the entry, its pending change and its lock, a command's argument.
 */
export const ID_RE = /^[A-Za-z0-9](?:[A-Za-z0-9_-]|\.(?!\.))*$/;

/** Id from a file name: `knowledge/archive/foo-bar.md` → `foo-bar`. */
export function idFromPath(file: string): string {
  const base = file.split("/").pop() ?? file;
  return base.replace(/\.md$/i, "");
}

/** True for a string usable as an entry id (and as a file name in the knowledge dir). */
export function isEntryId(id: string): boolean {
  return ID_RE.test(id);
}

/** An id as a reader (or a model) reads it: its dashes, dots and underscores as spaces (`ignore-all-previous` → `ignore all previous`). */
export function idAsWords(id: string): string {
  return id.replace(/[-_.]+/g, " ");
}
