/** Load every entry under the knowledge dir: entries, per-file diagnostics and duplicate-id problems. */
import type { Diagnostic } from "../entry/diagnostic.js";
import type { Entry } from "../entry/types.js";
import { listEntryFiles, mapLimit, readEntryFile, type EntryFile, type ReadResult } from "./files.js";
import type { Layout } from "./layout.js";
import { placeEntries } from "./places.js";

export type LoadedKnowledge = {
  /** Every entry that parsed well enough to have an id (may still carry errors). */
  entries: Entry[];
  /** Entries by id (first by path when ids collide). */
  byId: Map<string, Entry>;
  /** The files of each id claimed by more than one (in path order). */
  duplicates: ReadonlyMap<string, readonly string[]>;
  diagnostics: Diagnostic[];
  /** Paths of files that have at least one error. */
  invalid: Set<string>;
};

export type LoadOptions = {
  /** Files to load. Default: every entry file under the knowledge dir. */
  files?: EntryFile[];
  /** Today's date (UTC) for date rules. Default: now. */
  today?: string;
  /** Read one file instead of from disk, e.g. an editor's unsaved buffer or a cached parse. Default: `readEntryFile`. */
  read?: (file: EntryFile) => Promise<ReadResult> | ReadResult;
  /** Called once per file with its bytes and parse result, e.g. to run extra checks; returns extra diagnostics. */
  visit?: (file: EntryFile, result: ReadResult) => Promise<Diagnostic[]> | Diagnostic[];
};

export async function loadKnowledge(layout: Layout, options: LoadOptions = {}): Promise<LoadedKnowledge> {
  const files = options.files ?? (await listEntryFiles(layout));
  const { visit, read } = options;
  const results = await mapLimit(files, 16, async (file) => {
    const result = read ? await read(file) : await readEntryFile(layout, file, options.today);
    if (!visit) return result;
    const extra = await visit(file, result);
    return extra.length ? { ...result, diagnostics: [...result.diagnostics, ...extra] } : result;
  });
  const entries: Entry[] = [];
  const diagnostics: Diagnostic[] = [];
  const invalid = new Set<string>();
  for (const [i, result] of results.entries()) {
    diagnostics.push(...result.diagnostics);
    if (result.diagnostics.some((d) => d.severity === "error")) invalid.add(files[i]!.rel);
    if (result.entry) entries.push(result.entry);
  }
  const placed = placeEntries(entries);
  diagnostics.push(...placed.diagnostics);
  for (const d of placed.diagnostics) if (d.severity === "error") invalid.add(d.file);
  return { entries, byId: placed.byId, duplicates: placed.duplicates, diagnostics, invalid };
}
