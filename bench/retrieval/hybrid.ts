/**
 * Hybrid retrieval for the benchmark: cairn's lexical index and exact cosine over cached vectors,
 * fused by the product's own code (src/retrieval/fusion.ts), so the numbers measure what ships.
 * Also the two studies behind DEFAULT_FUSION: the fusion sweep and the relevance-floor study.
 */
import { LexicalIndex } from "../../src/indexing/lexical/index.js";
import {
  DEFAULT_FUSION,
  fuse,
  lexicalSignals,
  vectorSignals,
  vectorWeightFor,
  withFloor,
  type FusedHit,
  type FusionParams,
  type LexicalHit,
  type VectorHit,
} from "../../src/retrieval/fusion.js";
import { toLexicalDoc } from "./cairn-lexical.js";
import { lexicalHitsOf } from "./pipeline.js";
import type { BenchDoc, BenchQuery, Dataset } from "./dataset.js";
import type { Ranker, Rankings } from "./ranker.js";
import { cosineRank, type EmbeddedSet } from "./vector.js";

/** The raw lexical and vector lists of one query, computed once and fused many times. */
export type QuerySignals = { query: string; lexical: LexicalHit[]; vector: VectorHit[] };

type Pool = ReadonlyMap<string, Float32Array>;

function vectorPool(docs: readonly BenchDoc[], embedded: EmbeddedSet): Pool {
  return new Map(docs.map((d) => [d.id, embedded.docs.get(d.id)] as const).filter((e): e is [string, Float32Array] => e[1] !== undefined));
}

function signalsOf(index: LexicalIndex, pool: Pool, query: BenchQuery, embedded: EmbeddedSet, depth: number, skip?: ReadonlySet<string>): QuerySignals {
  const lexical = lexicalHitsOf(index, query.text, depth);
  const qv = embedded.queries.get(query.id);
  return { query: query.text, lexical, vector: qv ? cosineRank(qv, pool, depth, skip) : [] };
}

function buildIndex(docs: readonly BenchDoc[]): LexicalIndex {
  const index = new LexicalIndex();
  for (const doc of docs) index.add(toLexicalDoc(doc));
  return index;
}

/** Lexical hits (with the share of query weight matched) and vector hits of every query, `depth` deep. */
export function collectSignals(dataset: Dataset, embedded: EmbeddedSet, depth = DEFAULT_FUSION.depth): Map<string, QuerySignals> {
  const index = buildIndex(dataset.docs);
  const pool = vectorPool(dataset.docs, embedded);
  return new Map(dataset.queries.map((q) => [q.id, signalsOf(index, pool, q, embedded, depth)]));
}

/**
 * Signals of each query against the corpus without its relevant documents: a query that has no
 * matching entry. Exact: the relevant documents leave the lexical index (idf, lengths) and the vector pool.
 */
export function collectSignalsWithoutRelevant(dataset: Dataset, embedded: EmbeddedSet, queries: readonly BenchQuery[], depth = DEFAULT_FUSION.depth): Map<string, QuerySignals> {
  const index = buildIndex(dataset.docs);
  const pool = vectorPool(dataset.docs, embedded);
  const byId = new Map(dataset.docs.map((d) => [d.id, d]));
  const out = new Map<string, QuerySignals>();
  for (const q of queries) {
    const drop = new Set([...(dataset.qrels.get(q.id) ?? [])].filter(([, g]) => g > 0).map(([id]) => id));
    for (const id of drop) index.remove(id);
    out.set(q.id, signalsOf(index, pool, q, embedded, depth, drop));
    for (const id of drop) {
      const doc = byId.get(id);
      if (doc) index.add(toLexicalDoc(doc));
    }
  }
  return out;
}

/** Fuse one query's signals the way `hybridSearch` does; `floor` drops hits below the relevance floor. */
export function fuseSignals(signals: QuerySignals, params: FusionParams, floor: boolean): FusedHit[] {
  const lists = { lexical: lexicalSignals(signals.lexical, params), vector: vectorSignals(signals.vector, params) };
  const fused = fuse(lists, params, vectorWeightFor(signals.query, params));
  return floor ? withFloor(fused) : fused;
}

/** Hybrid ranker over precollected signals (unfloored by default: ranking quality; the floor is studied apart). */
export function hybrid(signals: ReadonlyMap<string, QuerySignals>, params: FusionParams, name = "hybrid", floor = false): Ranker {
  return {
    name,
    rank: async (_docs, queries, depth) => {
      const rankings: Rankings = new Map();
      for (const q of queries) {
        const s = signals.get(q.id);
        rankings.set(q.id, s ? fuseSignals(s, params, floor).slice(0, depth).map((h) => h.id) : []);
      }
      return rankings;
    },
  };
}

/** What the relevance floor does to the top 5 (the injection cap) of a set of queries. */
export type FloorStudy = {
  lexicalFloor: number;
  relativeFloor: number;
  /** Mean entries injected per query (top 5 after the floor). */
  injected: number;
  /** Share of injected entries that are judged relevant. */
  precision: number;
  /** Recall@5 with the floor, and without it (same fusion). */
  recall5: number;
  recall5Unfloored: number;
  /** Share of queries whose only relevant top-5 hits the floor removed. */
  lostQueries: number;
  /** With the relevant documents removed from the corpus: mean entries still injected, share of queries given none. */
  noRelevantInjected: number;
  noRelevantEmpty: number;
};

/** Study one floor setting on `queries` (which must have relevant judgments). */
export function studyFloor(
  dataset: Dataset,
  queries: readonly BenchQuery[],
  signals: ReadonlyMap<string, QuerySignals>,
  withoutRelevant: ReadonlyMap<string, QuerySignals>,
  params: FusionParams,
): FloorStudy {
  let injected = 0;
  let relevantInjected = 0;
  let recall = 0;
  let recallUnfloored = 0;
  let lost = 0;
  let noRelevant = 0;
  let empty = 0;
  for (const q of queries) {
    const judged = dataset.qrels.get(q.id) ?? new Map<string, number>();
    const isRelevant = (id: string) => (judged.get(id) ?? 0) > 0;
    const relevantCount = [...judged.values()].filter((g) => g > 0).length || 1;
    const fused = fuseSignals(signals.get(q.id)!, params, false);
    const top = fused.filter((h) => h.relevant).slice(0, 5);
    const hits = top.filter((h) => isRelevant(h.id)).length;
    const hitsUnfloored = fused.slice(0, 5).filter((h) => isRelevant(h.id)).length;
    injected += top.length;
    relevantInjected += hits;
    recall += hits / relevantCount;
    recallUnfloored += hitsUnfloored / relevantCount;
    if (hitsUnfloored > 0 && hits === 0) lost++;
    const none = fuseSignals(withoutRelevant.get(q.id)!, params, true).slice(0, 5).length;
    noRelevant += none;
    if (none === 0) empty++;
  }
  const n = Math.max(1, queries.length);
  return {
    lexicalFloor: params.lexicalFloor,
    relativeFloor: params.relativeFloor,
    injected: injected / n,
    precision: relevantInjected / Math.max(1, injected),
    recall5: recall / n,
    recall5Unfloored: recallUnfloored / n,
    lostQueries: lost / n,
    noRelevantInjected: noRelevant / n,
    noRelevantEmpty: empty / n,
  };
}

/** Vector hits that only the vector floor would admit (lexically below the floors), at one cosine threshold. */
export type VectorFloorStudy = { vectorFloor: number; queries: number; admittedPerQuery: number; precision: number };

/** How many top-10 vector hits of prose queries clear `vectorFloor` without clearing the lexical floors, and how many are relevant. */
export function studyVectorFloor(dataset: Dataset, queries: readonly BenchQuery[], signals: ReadonlyMap<string, QuerySignals>, vectorFloor: number): VectorFloorStudy {
  const prose = queries.filter((q) => vectorWeightFor(q.text, { ...DEFAULT_FUSION, vectorWeight: 1, vectorGate: "prose" }) > 0);
  let admitted = 0;
  let relevant = 0;
  for (const q of prose) {
    const s = signals.get(q.id)!;
    const lexicalPass = new Set(lexicalSignals(s.lexical, DEFAULT_FUSION).filter((h) => h.relevant).map((h) => h.id));
    for (const hit of s.vector.slice(0, 10)) {
      if (hit.similarity < vectorFloor || lexicalPass.has(hit.id)) continue;
      admitted++;
      if ((dataset.qrels.get(q.id)?.get(hit.id) ?? 0) > 0) relevant++;
    }
  }
  return { vectorFloor, queries: prose.length, admittedPerQuery: admitted / Math.max(1, prose.length), precision: relevant / Math.max(1, admitted) };
}
