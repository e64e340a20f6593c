/**
 * Weighted reciprocal-rank fusion of lexical, vector and changed-file signals, with a relevance floor.
 * The benchmarked defaults were chosen on the odd query ids of the retrieval benchmark and checked
 * on the even ids (`npx tsx bench/retrieval-hybrid.ts`, results in bench/results/retrieval-hybrid.json).
 */
import { splitRegions } from "../indexing/lexical/index.js";

export type FusionParams = {
  /** RRF constant k: larger flattens the rank curve. Default 60 (the usual RRF constant; with no vector weight no benchmark moves it: it only trades changed-file ranks against lexical ranks). */
  k: number;
  /** Weight of the lexical (BM25F) list. Default 1 (the reference the other weights are relative to). */
  lexicalWeight: number;
  /** Weight of the vector list for an all-prose query. Default 0: USE-lite has not earned a weight (near chance on review-clippy; on cranfield the best tuned weight gains ≤ 0.003 on the odd ids and loses Recall@5 and Hit@5 on the even ids). */
  vectorWeight: number;
  /** Scale the vector weight by the prose share of the query (`prose`) or not (`none`); matters when vectorWeight > 0. Default "prose" (at weight 0.15, ungated vectors cost review-clippy 0.009 nDCG@10). */
  vectorGate: "prose" | "none";
  /** Weight of the list of entries whose anchors touch changed files. Default 1 (not benchmarked: an entry anchored on a changed file ties a lexical first place). */
  anchorWeight: number;
  /** Candidates taken from each list. Default 100. */
  depth: number;
  /** A lexical hit is relevant only when it matches this share of the query's idf weight. Default 0.2 (floor study: ≤ 10% Recall@5 loss on each tuning half, fewest entries injected when nothing relevant exists). */
  lexicalFloor: number;
  /** ...and only when its BM25F score is at least this share of the best lexical score. Default 0.5 (same study; capped at 0.5 so a review spanning two topics keeps both topics' entries). */
  relativeFloor: number;
  /** A vector hit is relevant on its own at or above this cosine, when the vector list has weight. Default 0.9 (of vector-only admissions on prose queries, 3% were relevant at 0.75, none at 0.85 and up). */
  vectorFloor: number;
};

export const DEFAULT_FUSION: Readonly<FusionParams> = {
  k: 60,
  lexicalWeight: 1,
  vectorWeight: 0,
  vectorGate: "prose",
  anchorWeight: 1,
  depth: 100,
  lexicalFloor: 0.2,
  relativeFloor: 0.5,
  vectorFloor: 0.9,
};

/** One entry's place in one ranked list; `relevant` when this signal alone clears its floor. */
export type RankedSignal = {
  id: string;
  rank: number;
  score: number;
  relevant: boolean;
  /** Lexical only: share of the query's idf weight the entry matches. */
  matched?: number;
  /** Lexical only: score relative to the best lexical score of the query. */
  relative?: number;
};

export type FusedHit = {
  id: string;
  score: number;
  lexical?: RankedSignal;
  vector?: RankedSignal;
  anchor?: RankedSignal;
  /** At least one signal with a positive weight is above its floor. */
  relevant: boolean;
};

/** A lexical hit as the index returns it, with the share of the query's idf weight it matched. */
export type LexicalHit = { id: string; score: number; matchedShare: number };

/** A vector hit: cosine similarity of the entry's embedding to the query's. */
export type VectorHit = { id: string; similarity: number };

/** Share of the query's non-blank characters outside code (fences, inline code, code-like lines). */
export function proseShare(query: string): number {
  let prose = 0;
  let all = 0;
  for (const region of splitRegions(query)) {
    const size = region.text.replace(/\s+/g, "").length;
    all += size;
    if (!region.code) prose += size;
  }
  return all === 0 ? 0 : prose / all;
}

/** The vector weight applied to one query: `vectorWeight`, times its prose share under the prose gate. */
export function vectorWeightFor(query: string, params: FusionParams = DEFAULT_FUSION): number {
  if (params.vectorWeight <= 0) return 0;
  return params.vectorGate === "prose" ? params.vectorWeight * proseShare(query) : params.vectorWeight;
}

/** 1-based ranks of scores sorted best first; equal scores share the better rank (1, 2, 2, 4). */
function sharedRanks(scores: readonly number[]): number[] {
  const ranks: number[] = [];
  scores.forEach((score, i) => ranks.push(i > 0 && score === scores[i - 1] ? ranks[i - 1]! : i + 1));
  return ranks;
}

/** Rank lexical hits (given best first; ties share a rank) and mark those above both lexical floors. */
export function lexicalSignals(hits: readonly LexicalHit[], params: FusionParams = DEFAULT_FUSION): RankedSignal[] {
  const top = hits.reduce((best, h) => Math.max(best, h.score), 0);
  const ranks = sharedRanks(hits.map((h) => h.score));
  return hits.map((h, i) => {
    const relative = top > 0 ? h.score / top : 0;
    return {
      id: h.id,
      rank: ranks[i]!,
      score: h.score,
      matched: h.matchedShare,
      relative,
      relevant: h.matchedShare >= params.lexicalFloor && relative >= params.relativeFloor,
    };
  });
}

/** Rank vector hits (given best first; ties share a rank) and mark those above the vector floor. */
export function vectorSignals(hits: readonly VectorHit[], params: FusionParams = DEFAULT_FUSION): RankedSignal[] {
  const ranks = sharedRanks(hits.map((h) => h.similarity));
  return hits.map((h, i) => ({ id: h.id, rank: ranks[i]!, score: h.similarity, relevant: h.similarity >= params.vectorFloor }));
}

const byScoreThenId = (a: FusedHit, b: FusedHit): number => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * Fuse ranked lists: each list adds `weight / (k + rank)` to its entries; `vectorWeight` is the
 * weight for this query (`vectorWeightFor`). A list with weight 0 adds neither score, candidates
 * nor relevance, but its signals are still attached to the other lists' hits for `explain`.
 * Ties are broken by ascending id, so output is deterministic.
 */
export function fuse(
  lists: { lexical?: RankedSignal[]; vector?: RankedSignal[]; anchor?: RankedSignal[] },
  params: FusionParams = DEFAULT_FUSION,
  vectorWeight: number = params.vectorWeight,
): FusedHit[] {
  const hits = new Map<string, FusedHit>();
  const kinds = [
    { kind: "lexical", weight: params.lexicalWeight },
    { kind: "anchor", weight: params.anchorWeight },
    { kind: "vector", weight: vectorWeight },
  ] as const;
  for (const { kind, weight } of kinds) {
    if (weight <= 0) continue;
    for (const signal of (lists[kind] ?? []).slice(0, params.depth)) {
      const hit = hits.get(signal.id) ?? { id: signal.id, score: 0, relevant: false };
      hit[kind] = signal;
      hit.score += weight / (params.k + signal.rank);
      hit.relevant ||= signal.relevant;
      hits.set(signal.id, hit);
    }
  }
  for (const { kind, weight } of kinds) {
    if (weight > 0) continue;
    for (const signal of (lists[kind] ?? []).slice(0, params.depth)) {
      const hit = hits.get(signal.id);
      if (hit) hit[kind] = signal;
    }
  }
  return [...hits.values()].sort(byScoreThenId);
}

/** Keep only hits above the relevance floor (order kept). */
export function withFloor(hits: readonly FusedHit[]): FusedHit[] {
  return hits.filter((h) => h.relevant);
}
