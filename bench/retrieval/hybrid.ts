/**
 * Hybrid retrieval for the benchmark: cairn's lexical index and exact cosine over cached vectors,
 * fused by the product's own `fuse()` (src/retrieval/fusion.ts), so the numbers measure what ships.
 */
import { LexicalIndex } from "../../src/indexing/lexical/index.js";
import { DEFAULT_FUSION, fuse, lexicalSignals, vectorSignals, withFloor, type FusedHit, type FusionParams, type LexicalHit } from "../../src/retrieval/fusion.js";
import { toLexicalDoc } from "./cairn-lexical.js";
import type { BenchDoc, BenchQuery } from "./dataset.js";
import type { Ranker, Rankings } from "./ranker.js";
import { cosineRank, type EmbeddedSet, type VectorHit } from "./vector.js";

/** The raw lexical and vector lists of one query, computed once and fused many times. */
export type QuerySignals = { lexical: LexicalHit[]; vector: VectorHit[] };

/** Query term → idf-weighted importance, as `SearchIndex.lexicalQueryWeights` computes it for the product. */
function queryWeights(index: LexicalIndex, query: string): Map<string, number> {
  const n = Math.max(1, index.size);
  const out = new Map<string, number>();
  for (const [term, qw] of index.queryTerms(query)) {
    const df = index.documentFrequency(term);
    out.set(term, qw * Math.log(1 + (n - df + 0.5) / (df + 0.5)));
  }
  return out;
}

/** Lexical hits (with the share of query weight matched) and vector hits of every query, `depth` deep. */
export function collectSignals(
  docs: readonly BenchDoc[],
  queries: readonly BenchQuery[],
  embedded: EmbeddedSet,
  depth = DEFAULT_FUSION.depth,
): Map<string, QuerySignals> {
  const index = new LexicalIndex();
  for (const doc of docs) index.add(toLexicalDoc(doc));
  const pool = new Map(docs.map((d) => [d.id, embedded.docs.get(d.id)] as const).filter((e): e is [string, Float32Array] => e[1] !== undefined));
  const out = new Map<string, QuerySignals>();
  for (const q of queries) {
    const weights = queryWeights(index, q.text);
    const total = [...weights.values()].reduce((a, b) => a + b, 0) || 1;
    const lexical = index.search(q.text, { limit: depth }).map((h) => ({
      id: h.id,
      score: h.score,
      matchedShare: (h.matched ?? []).reduce((sum, t) => sum + (weights.get(t) ?? 0), 0) / total,
    }));
    const qv = embedded.queries.get(q.id);
    out.set(q.id, { lexical, vector: qv ? cosineRank(qv, pool, depth) : [] });
  }
  return out;
}

/** Fuse one query's signals the way `hybridSearch` does; `floor` drops hits below the relevance floor. */
export function fuseSignals(signals: QuerySignals, params: FusionParams, floor: boolean): FusedHit[] {
  const fused = fuse({ lexical: lexicalSignals(signals.lexical, params), vector: vectorSignals(signals.vector, params) }, params);
  return floor ? withFloor(fused) : fused;
}

/** Hybrid ranker over precollected signals (unfloored: ranking quality; the floor is measured apart). */
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
