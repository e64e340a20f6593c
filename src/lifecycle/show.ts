/** `cairn show ID` / MCP `get_entry`: one entry's text, parsed fields, status row and problems. */
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { CairnConfig } from "../config.js";
import type { Diagnostic } from "../entry/diagnostic.js";
import type { Entry } from "../entry/types.js";
import type { EntryLedgerView, LedgerSource } from "../ledger/index.js";
import type { Layout } from "../store/layout.js";
import { liveWarnings } from "../anchors/live.js";
import { buildStatus } from "./status.js";
import type { EntryView } from "../types/status.js";

export type { AnchorView, EntryView, ShowResult } from "../types/status.js";

/** Build the view of a loaded entry; reads the file's text once more (entries are small). */
export async function entryView(
  layout: Layout,
  config: Pick<CairnConfig, "decayAfterRuns" | "nearDecayRatio" | "holdout">,
  entry: Entry,
  diagnostics: Diagnostic[],
  views: Map<string, EntryLedgerView>,
  events: LedgerSource,
): Promise<EntryView> {
  const own = diagnostics.filter((d) => d.file === entry.path);
  // The same warnings as the entry's row in `status`: anchor drift and a failed verification too.
  const extra = liveWarnings([entry], own, events);
  const [row] = buildStatus({ entries: [entry], diagnostics: own, views, events, config, extra }, { all: true }).entries;
  const fm = entry.frontmatter;
  return {
    id: entry.id,
    path: entry.path,
    state: entry.state,
    text: await readFile(path.join(layout.root, entry.path), "utf8"),
    frontmatter: { ...fm },
    title: typeof fm.title === "string" ? fm.title : null,
    finding: entry.finding.text.replace(/\s*\n\s*/g, " ").trim(),
    evidence: entry.evidence.anchors.map(({ raw, path: p, startLine, endLine, symbol, note, line }) => ({
      raw,
      ...(p !== undefined ? { path: p } : {}),
      ...(startLine !== undefined ? { startLine } : {}),
      ...(endLine !== undefined ? { endLine } : {}),
      ...(symbol !== undefined ? { symbol } : {}),
      ...(note ? { note } : {}),
      line,
    })),
    verify: entry.verify.steps,
    status: row!,
    diagnostics: own,
  };
}
