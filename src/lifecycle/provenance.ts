/**
 * Provenance inputs: what `record` and `compound` check before trusting a run id and agent names.
 * A finding for a run with no recorded injection, or by an agent that got nothing in that run,
 * would silently count as independent; it still records, but with a warning (`strict`: refused).
 */
import { agentKey } from "../entry/agent-name.js";
import { createHash } from "node:crypto";
import type { LedgerSource } from "../ledger/index.js";
import { knownRuns, runRecord, type RunRef } from "../ledger/index.js";
import { closest as suggest } from "../text/suggest.js";
import type { Match } from "./match.js";

/** sha256 (first 16 hex) of a finding's text, whitespace-normalised: with run, origin and agent, the key that makes record/compound idempotent. */
export function findingHash(text: string): string {
  return createHash("sha256").update(text.replace(/\s+/g, " ").trim()).digest("hex").slice(0, 16);
}

/** Warnings about the run and the agents of a batch of findings; empty when every agent has a recorded injection in the run. */
export function provenanceWarnings(events: LedgerSource, run: RunRef, agents: readonly string[]): string[] {
  const record = runRecord(events, run);
  if (!record.injected) {
    const near = suggest(run.run, knownRuns(events).slice(0, 200));
    return [
      `run "${run.run}" has no recorded injection${run.origin ? ` on ${run.origin}` : ""} (no inject call, only --dry-run, or another run id${near.length ? `: did you mean ${near.map((r) => `"${r}"`).join(", ")}?` : ""}); its findings count as independent`,
    ];
  }
  const warnings: string[] = [];
  const seen = new Set<string>();
  for (const agent of agents) {
    const key = agentKey(agent);
    if (seen.has(key) || record.agents.has(key)) continue;
    seen.add(key);
    const near = suggest(key, [...record.agents]);
    warnings.push(
      `agent "${agent}" has no recorded injection in run "${run.run}"${near.length ? ` (agents of this run: did you mean ${near.map((a) => `"${a}"`).join(", ")}?)` : ""}; its findings count as independent`,
    );
  }
  return warnings;
}

/** Why a finding of an agent is primed: the injected entries it matches above the threshold, and those it could not be compared with. */
export type Priming = {
  /** Entries injected into the agent in the run that the finding matches at or above the threshold, best first. */
  by: Match[];
  /** Entries injected into the agent in the run that are no longer in the knowledge base (retracted, renamed, moved by hand). */
  unscored: string[];
};

/**
 * The one rule of primed-ness (record and compound): a finding is primed when it matches an entry
 * injected into its agent in the run. An injected entry gone from the knowledge base cannot be scored,
 * and the agent was shown it all the same: it fails closed — such a finding is primed, never
 * independent (else retracting a false positive, or renaming its file, would let the next re-flag of
 * it count as a fresh discovery: the feedback loop the lifecycle exists to break).
 */
export async function primingOf(injected: ReadonlySet<string>, known: (id: string) => boolean, score: (ids: ReadonlySet<string>) => Promise<Match[]>, threshold: number): Promise<Priming> {
  if (!injected.size) return { by: [], unscored: [] };
  const unscored = [...injected].filter((id) => !known(id)).sort();
  const scorable = new Set([...injected].filter(known));
  const by = scorable.size ? (await score(scorable)).filter((m) => m.score >= threshold) : [];
  return { by, unscored };
}

/** The warning for an agent primed by entries that are gone. */
export function unscoredWarning(agent: string, run: RunRef, unscored: readonly string[]): string {
  const ids = unscored.map((id) => `"${id}"`).join(", ");
  return `${ids} ${unscored.length === 1 ? "was" : "were"} injected into ${agent} in run "${run.run}" but ${unscored.length === 1 ? "is" : "are"} no longer in the knowledge base (retracted, renamed or moved by hand), so ${agent}'s findings in this run cannot be compared with what it was shown: they count as primed`;
}
