/**
 * The knowledge base as lifecycle commands see it, from the catalogue alone: the entries that parse
 * today (records), by id, and the parse problems — the shape of a full load (store/load.ts) without
 * reading a single entry file.
 */
import type { Diagnostic } from "../entry/diagnostic.js";
import { placeEntries } from "../store/places.js";
import { problemsOf, type CatalogueData, type CatalogueRecord } from "./catalogue.js";

export type KnowledgeView = {
  /** Records of the files that parse as entries now (they may still carry errors), sorted by path. */
  entries: CatalogueRecord[];
  /** Entries by id (first by path when ids collide). */
  byId: Map<string, CatalogueRecord>;
  /** The files of each id claimed by more than one (in path order). */
  duplicates: ReadonlyMap<string, readonly string[]>;
  /** Parse problems of every file (incl. files that do not parse at all) and duplicate ids; not the rule modules'. */
  diagnostics: Diagnostic[];
  /** Paths of files with at least one error above. */
  invalid: Set<string>;
};

export function knowledgeView(data: CatalogueData, today: string): KnowledgeView {
  const entries: CatalogueRecord[] = [];
  const diagnostics: Diagnostic[] = [];
  const invalid = new Set<string>();
  const note = (list: readonly Diagnostic[]) => {
    diagnostics.push(...list);
    for (const d of list) if (d.severity === "error") invalid.add(d.file);
  };
  for (const broken of data.broken) note(broken.problems);
  for (const record of data.records) {
    note(problemsOf(record, today));
    if (!record.unparsed) entries.push(record);
  }
  const placed = placeEntries(entries);
  note(placed.diagnostics);
  return { entries, byId: placed.byId, duplicates: placed.duplicates, diagnostics, invalid };
}
