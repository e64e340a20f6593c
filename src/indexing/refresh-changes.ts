/**
 * What a refresh of the search index changed (search-index.ts): the catalogue before and after, compared
 * position by position — a record kept as it was (the same saved line, or the same record) is not decoded.
 */
import type { CatalogueChanges } from "./catalogue.js";
import type { StoredCatalogue } from "./catalogue-store.js";
import type { SyncReport } from "../types/indexing.js";

/** The lexical documents owed: ids to (re)build and ids to drop (lexical-docs.ts). */
type Debt = { stale: Set<string>; gone: Set<string> };

/**
 * Fill `report` (added, updated, moved, removed, unchanged, codeChanged, duplicate-id warnings) and mark in `debt`
 * every id whose record differs now (`oweDisplaced` adds the ids a duplicate took the file of). `codeStale`: ids whose anchored source files changed. Returns the
 * ids whose content changed (their vectors are embedded again).
 */
export function compareCatalogues(before: StoredCatalogue, data: StoredCatalogue, changes: CatalogueChanges, codeStale: ReadonlySet<string>, report: SyncReport, debt: Debt): string[] {
  const { stale, gone } = debt;
  report.errors.push(...changes.errors);
  const now = data.positions();
  const duplicates: Array<[string, string]> = [];
  for (const [file, { record }] of changes.parsed) {
    const first = now.get(record.id);
    if (first !== undefined && data.pathAt(first) !== file) duplicates.push([file, `duplicate id "${record.id}" in ${file}; indexing ${data.pathAt(first)} only`]);
  }
  report.warnings.push(...duplicates.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([, w]) => w));
  const previousAt = before.positions();
  const contentChanged: string[] = [];
  for (const [id, k] of now) {
    const p = previousAt.get(id);
    if (p !== undefined && data.sameAs(k, before, p)) {
      report.unchanged++;
      // Owed unless the lexical index is known to hold this record's document (checked by hash when paid).
      if (!data.hasCodeAt(k)) stale.add(id), gone.delete(id);
      continue;
    }
    stale.add(id), gone.delete(id);
    const record = data.at(k);
    const previous = p === undefined ? undefined : before.at(p);
    if (!previous) report.added.push(id);
    else if (previous.contentHash !== record.contentHash || previous.lexicalHash !== record.lexicalHash) report.updated.push(id);
    else if (previous.path !== record.path || previous.state !== record.state) report.moved.push(id);
    else report.unchanged++;
    if (!previous || previous.contentHash !== record.contentHash) contentChanged.push(id);
  }
  for (const id of previousAt.keys()) {
    if (now.has(id)) continue;
    report.removed.push(id);
    gone.add(id);
    stale.delete(id);
  }
  report.codeChanged = [...codeStale].filter((id) => previousAt.has(id) && data.sameAs(now.get(id)!, before, previousAt.get(id)!)).sort();
  return contentChanged;
}

/** A parsed file that lost its id to another file (a duplicate id) was built as it was parsed: the indexed one's document is owed. */
export function oweDisplaced(data: StoredCatalogue, changes: CatalogueChanges, stale: Set<string>): void {
  const now = data.positions();
  for (const { record } of changes.parsed.values()) {
    const k = now.get(record.id);
    if (k === undefined || data.decodedAt(k) !== record) stale.add(record.id);
  }
}
