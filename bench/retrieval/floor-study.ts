/** The relevance floor measured both ways: what it keeps of the unfloored top 5, what it cuts when nothing relevant exists. */
import { DEFAULT_FUSION, type FusionParams } from "../../src/retrieval/fusion.js";
import { scoreQuery } from "./metrics.js";
import { decide, type Collected } from "./pipeline.js";

/** The floor parameters a sweep varies. */
export type FloorSetting = Pick<FusionParams, "evidenceFloor" | "lexicalFloor" | "relativeFloor"> & { shortQueryWords?: number };

/** The floor before issue 10: ≥ 20% of the query's idf weight matched, whatever the query's length, and ≥ 50% of the best score (no evidence floor). */
export const PREVIOUS_FLOOR: FloorSetting = { evidenceFloor: Infinity, lexicalFloor: 0.2, relativeFloor: 0.5, shortQueryWords: Infinity };

export type FloorOutcome = {
  queries: number;
  hit5: number;
  hit5Unfloored: number;
  recall5: number;
  recall5Unfloored: number;
  /** Mean entries handed over per query (top 5 after the floor). */
  injected: number;
  /** With the query's relevant documents removed: mean entries still handed over, and the share of queries given none. */
  noRelevantInjected: number;
  noRelevantEmpty: number;
};

export type Judged = { id: string; relevant: ReadonlyMap<string, number> };

/** Evaluate one floor setting on some queries, from signals collected with and without their relevant documents. */
export function floorOutcome(
  queries: readonly Judged[],
  withRelevant: ReadonlyMap<string, Collected>,
  withoutRelevant: ReadonlyMap<string, Collected>,
  setting: FloorSetting,
  floor = true,
): FloorOutcome {
  const params: FusionParams = { ...DEFAULT_FUSION, ...setting };
  const sum = { hit5: 0, hit5Unfloored: 0, recall5: 0, recall5Unfloored: 0, injected: 0, noRelevantInjected: 0, noRelevantEmpty: 0 };
  for (const q of queries) {
    const c = withRelevant.get(q.id)!;
    const floored = decide(c, params, floor);
    const unfloored = decide(c, params, false);
    const m = scoreQuery(floored, q.relevant);
    const u = scoreQuery(unfloored, q.relevant);
    sum.hit5 += m.hit5;
    sum.hit5Unfloored += u.hit5;
    sum.recall5 += m.recall5;
    sum.recall5Unfloored += u.recall5;
    sum.injected += floored.length;
    const none = decide(withoutRelevant.get(q.id)!, params, floor).length;
    sum.noRelevantInjected += none;
    if (none === 0) sum.noRelevantEmpty++;
  }
  const n = Math.max(1, queries.length);
  return {
    queries: queries.length,
    hit5: sum.hit5 / n,
    hit5Unfloored: sum.hit5Unfloored / n,
    recall5: sum.recall5 / n,
    recall5Unfloored: sum.recall5Unfloored / n,
    injected: sum.injected / n,
    noRelevantInjected: sum.noRelevantInjected / n,
    noRelevantEmpty: sum.noRelevantEmpty / n,
  };
}

/** Share of the unfloored Hit@5 the floor keeps (1 when the ranking had no hit to keep). */
export const kept = (o: FloorOutcome): number => (o.hit5Unfloored > 0 ? o.hit5 / o.hit5Unfloored : 1);

/** Share of the unfloored injections (5 per query when nothing is relevant) the floor cuts. */
export const cut = (o: FloorOutcome): number => 1 - o.noRelevantInjected / 5;

/** Mean entries handed over per off-topic query (a query of another set: nothing relevant, nothing close). */
export function offTopicInjected(collected: readonly Collected[], setting: FloorSetting): number {
  const params: FusionParams = { ...DEFAULT_FUSION, ...setting };
  return collected.reduce((s, c) => s + decide(c, params, true).length, 0) / Math.max(1, collected.length);
}

/** The sweep grid: evidence floor × share floor × relative floor. */
export function floorGrid(): FloorSetting[] {
  const out: FloorSetting[] = [];
  for (const evidenceFloor of [0.5, 0.75, 1, 1.25, 1.5, 2])
    for (const lexicalFloor of [0.2, 0.3, 0.5, 0.7, 1.01])
      for (const relativeFloor of [0.25, 0.35, 0.5]) out.push({ evidenceFloor, lexicalFloor, relativeFloor });
  return out;
}

export const settingName = (s: FloorSetting): string =>
  s.evidenceFloor === Infinity
    ? `share ≥ ${s.lexicalFloor}, relative ≥ ${s.relativeFloor}`
    : `evidence ≥ ${s.evidenceFloor} or share ≥ ${s.lexicalFloor > 1 ? "off" : `${s.lexicalFloor} (queries ≤ ${s.shortQueryWords ?? DEFAULT_FUSION.shortQueryWords} words)`}, relative ≥ ${s.relativeFloor}`;
