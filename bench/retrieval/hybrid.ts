/**
 * Hybrid retrieval for the benchmark: cairn's lexical index and exact cosine over cached vectors,
 * fused by the product's own code (src/retrieval/fusion.ts), so the numbers measure what ships.
 * Also the vector-floor study behind DEFAULT_FUSION.vectorFloor.
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
