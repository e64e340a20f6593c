/** Decay (lifecycle rule 3): plan which active entries reached decayAfterRuns, then archive them. */
import type { Entry } from "../entry/types.js";
import type { EntryLedgerView } from "../ledger/index.js";

export type DecayCandidate = { id: string; path: string; unconfirmedRuns: number; lastConfirmed: string | null; reason: string };

export type PlanDecayOptions = {
  /** Ids independently confirmed by a plan not yet applied (a dry-run `record`): they do not decay. Default none. */
  confirmed?: ReadonlySet<string>;
};

export function planDecay(entries: Entry[], views: Map<string, EntryLedgerView>, decayAfterRuns: number, options: PlanDecayOptions = {}): DecayCandidate[] {
  const out: DecayCandidate[] = [];
  for (const entry of entries) {
    if (entry.state !== "active" || options.confirmed?.has(entry.id)) continue;
    const runs = views.get(entry.id)?.unconfirmedRuns ?? 0;
    if (runs < decayAfterRuns) continue;
    const lastConfirmed = typeof entry.frontmatter.lastConfirmed === "string" ? entry.frontmatter.lastConfirmed : null;
    out.push({
      id: entry.id,
      path: entry.path,
      unconfirmedRuns: runs,
      lastConfirmed,
      reason: `decayed: injected in ${runs} runs without an independent confirmation since ${lastConfirmed ?? "it was written"}`,
    });
  }
  return out.sort((a, b) => a.id.localeCompare(b.id));
}
