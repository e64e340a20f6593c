/** Warnings that come from the code and the ledger rather than the entry text: anchor drift and failed verifications (for `status`). */
import path from "node:path";
import { anchorResolverFor } from "../check/anchors.js";
import type { CairnConfig } from "../config.js";
import type { Entry } from "../entry/types.js";
import type { LedgerEvent } from "../ledger/events.js";
import type { Layout } from "../store/layout.js";
import { verificationStates, verificationWarning } from "../verify/records.js";
import { latestFingerprints } from "./fingerprint.js";
import { anchorWarnings, resolveEntryAnchors } from "./entry.js";

/** Per entry id: drift warnings of its anchors and a failed-verification warning. */
export async function liveWarnings(layout: Layout, config: Pick<CairnConfig, "repos">, entries: readonly Entry[], events: readonly LedgerEvent[]): Promise<Map<string, string[]>> {
  const resolver = anchorResolverFor(layout, { repos: config.repos, fingerprints: async () => latestFingerprints(events) });
  const states = verificationStates(events);
  const out = new Map<string, string[]>();
  for (const entry of entries) {
    const warnings = anchorWarnings(await resolveEntryAnchors(resolver, entry));
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
