/**
 * Markdown files under the knowledge directory that cairn never reads as entries: entries live directly in
 * `knowledge/` (active) and `knowledge/archive/` (archived), named `*.md`. A `knowledge/go/retry.md` or a
 * `knowledge/retry.markdown` passed `check` as "0 files" and never reached a prompt: `check` names each one.
 */
import { readdir } from "node:fs/promises";
import path from "node:path";
import { diagnostic, type Diagnostic } from "../entry/diagnostic.js";
import { isEntryFileName } from "../store/files.js";
import { relativePath, type Layout } from "../store/layout.js";

/** Directories below the knowledge directory searched, at most (a deep tree is not an entry store). */
const MAX_DEPTH = 4;
/** Files reported at most (then a count). */
const MAX_REPORTED = 50;

/** `entry-misplaced` warnings for markdown files in the knowledge directory that are not entry files. */
export async function misplacedEntries(layout: Layout): Promise<Diagnostic[]> {
  const found: string[] = [];
  const walk = async (dir: string, depth: number): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    const entryDir = dir === layout.knowledge || dir === layout.archive;
    for (const entry of entries) {
      if (entry.name.startsWith(".")) continue; // .ledger, .pending, editors' and git's own
      const abs = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (abs !== layout.archive && depth < MAX_DEPTH) await walk(abs, depth + 1);
        continue;
      }
      if (!/\.(md|markdown|mdown|mkd)$/i.test(entry.name) || /^readme\./i.test(entry.name)) continue; // a README documents the directory
      if (entryDir && isEntryFileName(entry.name)) continue;
      found.push(abs);
    }
  };
  await walk(layout.knowledge, 0);
  await walk(layout.archive, 1);
  const knowledge = relativePath(layout, layout.knowledge);
  const out = found.sort().slice(0, MAX_REPORTED).map((abs) => {
    const rel = relativePath(layout, abs);
    const where = path.dirname(abs) === layout.knowledge || path.dirname(abs) === layout.archive ? "its name does not end in .md" : `it is in ${relativePath(layout, path.dirname(abs))}/`;
    return diagnostic(rel, "entry-misplaced", "warning", `not read as an entry: ${where}; entries are the .md files directly in ${knowledge}/ (active) and ${knowledge}/archive/ (archived) — move or rename it, or keep it elsewhere`);
  });
  if (found.length > MAX_REPORTED) out.push(diagnostic(relativePath(layout, layout.knowledge), "entry-misplaced", "warning", `… and ${found.length - MAX_REPORTED} more markdown files that are not read as entries`));
  return out;
}
