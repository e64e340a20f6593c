/**
 * A repeated `inject` request gets the answer its first call recorded. An orchestrator whose first call timed out (a
 * cold index in a fresh clone takes minutes) retries it; the first call still ran, recorded its `injected` event and
 * used the agent's slots, so the retry got the next entries, or none — and the ledger said the agent saw entries it
 * never saw: its independent re-discovery of one of them then counted as primed, and the entry decayed for it.
 *
 * Each `injected` event carries a fingerprint of the request (`request`); a call whose fingerprint an earlier call of
 * the same agent and run recorded is answered with that call's entries again — read, gated and rendered now, never
 * recorded twice. A different request (another file, another summary) is a new call, as before.
 */
import { createHash } from "node:crypto";
import { agentKey } from "../entry/agent-name.js";
import type { Entry } from "../entry/types.js";
import type { LedgerEvent, RunRef } from "../ledger/index.js";
import { sameRun } from "../ledger/run-ref.js";
import type { InjectInput } from "../types/inject.js";
import { fitToBudget, type Budgeted } from "./budget.js";
import { withContradictions, type Candidate } from "./inject-context.js";

/** What makes two calls the same request: everything that chooses or renders the entries. */
export function requestFingerprint(input: InjectInput): string {
  const list = (items: readonly string[] | undefined) => [...new Set((items ?? []).map((s) => s.trim()).filter(Boolean))].sort();
  const request = {
    keywords: (input.keywords ?? []).map((k) => k.trim()).filter(Boolean),
    summary: input.summary?.trim() ?? "",
    changedFiles: list(input.changedFiles),
    diff: input.diff ?? "",
    limit: input.limit ?? null,
    maxTokens: input.maxTokens ?? null,
    includeStatuses: list(input.includeStatuses),
  };
  return createHash("sha256").update(JSON.stringify(request)).digest("hex").slice(0, 16);
}

/** The entries the first call of `agent` in `run` with this request recorded, or undefined when none did. */
export function previousAnswer(events: readonly LedgerEvent[], ref: RunRef, agent: string, request: string): string[] | undefined {
  const key = agentKey(agent);
  for (const event of events) {
    if (event.type === "injected" && event.request === request && agentKey(event.agent) === key && sameRun(event, ref)) return event.entries;
  }
  return undefined;
}

/**
 * The earlier answer's entries, gated again by the caller (one that fails the gate now is left out, with a warning)
 * and given their context: rendered in the earlier order within `maxTokens`; an entry grown since that no longer
 * fits gives way, the last ones first, with a warning.
 */
export async function replayed(chosen: Candidate[], earlier: Map<string, Entry | undefined>, maxTokens: number, warnings: string[]): Promise<Budgeted> {
  const kept = [...chosen];
  let budget = await fitToBudget(withContradictions(kept, earlier), maxTokens);
  while (!budget.fits && kept.length) {
    warnings.push(`left out ${kept.pop()!.entry.id} of the earlier answer: it no longer fits the ${maxTokens}-token budget`);
    budget = await fitToBudget(withContradictions(kept, earlier), maxTokens);
  }
  return budget;
}
