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
import type { GateVerdict } from "../check/gate.js";
import { fitToBudget, type Budgeted } from "./budget.js";
import type { ContextEntry } from "./context.js";
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

/** An entry of the earlier answer as the gate sees it now. */
export type Regated = { id: string; entry?: Entry; verdict?: GateVerdict; drift: string[]; problem?: string };

/**
 * The earlier answer rendered again: each entry read and gated now (one that fails the gate now is left out, with a
 * warning), with its context as `context` builds it, in the earlier order, within `maxTokens`.
 */
export async function replayed(
  ids: readonly string[],
  regate: (ids: readonly string[]) => Promise<Regated[]>,
  context: (candidate: Candidate) => ContextEntry,
  earlier: Map<string, Entry | undefined>,
  maxTokens: number,
): Promise<{ budget: Budgeted; warnings: string[] }> {
  const warnings: string[] = [];
  const chosen: Candidate[] = [];
  for (const one of await regate(ids)) {
    if (!one.entry || !one.verdict) {
      warnings.push(`left out ${one.id} of the earlier answer: ${one.problem ?? "it can no longer be read as that entry"}`);
      continue;
    }
    const candidate: Candidate = { hit: { id: one.id, path: one.entry.path, state: one.entry.state, score: 0, status: "observed", explain: { relevant: true } }, entry: one.entry, verdict: one.verdict, drift: one.drift };
    candidate.context = context(candidate);
    chosen.push(candidate);
  }
  let budget = await fitToBudget(withContradictions(chosen, earlier), maxTokens);
  // The same request had the same budget; an entry grown since may no longer fit: the last ones give way.
  while (!budget.fits && chosen.length) {
    warnings.push(`left out ${chosen.pop()!.entry.id} of the earlier answer: it no longer fits the ${maxTokens}-token budget`);
    budget = await fitToBudget(withContradictions(chosen, earlier), maxTokens);
  }
  return { budget, warnings };
}
