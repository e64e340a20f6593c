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
