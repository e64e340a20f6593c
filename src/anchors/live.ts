/** Warnings that come from the code and the ledger rather than the entry text: anchor drift and failed verifications (for `status`). */
import path from "node:path";
import type { Diagnostic } from "../entry/diagnostic.js";
import type { Entry } from "../entry/types.js";
import type { LedgerSource } from "../ledger/index.js";
import type { Layout } from "../store/layout.js";
import { verificationStates, verificationWarning } from "../verify/records.js";
import { anchorWarning } from "./entry.js";

/**
 * Per entry id: its anchor warnings (drift, rename, changed lines, ambiguous or external anchors) and
 * a failed-verification warning, for `status`. The anchor warnings are the lint's own diagnostics
 * (rule severities and inline disables applied), so anchors are resolved once, by the one engine.
 */
export function liveWarnings(entries: ReadonlyArray<Pick<Entry, "id" | "path"> & (Pick<Entry, "verify"> | { verifyHash: string })>, diagnostics: readonly Diagnostic[], events: LedgerSource): Map<string, string[]> {
  const byFile = new Map<string, string[]>();
  for (const d of diagnostics) {
    if (d.severity !== "warning" || !d.rule.startsWith("anchor-")) continue;
    byFile.set(d.file, [...(byFile.get(d.file) ?? []), anchorWarning(d)]);
  }
  const states = verificationStates(events);
  const out = new Map<string, string[]>();
  for (const entry of entries) {
    const warnings = [...new Set(byFile.get(entry.path) ?? [])];
    const failed = verificationWarning(entry, states.get(entry.id));
    if (failed) warnings.push(failed);
    if (warnings.length) out.set(entry.id, warnings);
  }
  return out;
}

/** The entries under the given files or directories (repo-relative or absolute); all when none are given. */
export function selectEntries(layout: Layout, entries: readonly Entry[], paths: readonly string[] | undefined): Entry[] {
  if (!paths?.length) return [...entries];
  const wanted = paths.map((p) => path.resolve(layout.root, p));
  return entries.filter((e) => {
    const abs = path.join(layout.root, e.path);
    return wanted.some((w) => abs === w || abs.startsWith(w + path.sep));
  });
}
