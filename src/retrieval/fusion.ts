/**
 * Weighted reciprocal-rank fusion of lexical, vector and changed-file signals, with a relevance floor.
 * The benchmarked defaults were chosen on the odd query ids of the retrieval benchmark and checked
 * on the even ids (`npx tsx bench/retrieval-hybrid.ts`, results in bench/results/retrieval-hybrid.json).
 */
import { splitRegions } from "../indexing/lexical/index.js";
import type { FusionParams, TouchLevel } from "../types/search.js";

export type { FusionParams } from "../types/search.js";

export const DEFAULT_FUSION: Readonly<FusionParams> = {
  k: 60,
  lexicalWeight: 1,
  vectorWeight: 0,
  vectorGate: "prose",
  anchorWeight: 1,
  depth: 100,
  evidenceFloor: 1.25,
  lexicalFloor: 0.2,
  shortQueryWords: 6,
  relativeFloor: 0.35,
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
  /** Lexical only: idf weight of the matched query terms in units of the idf of a term found in one entry. */
  evidence?: number;
  /** Lexical only: score relative to the best lexical score of the query. */
  relative?: number;
  /** Lexical only: the query is short enough for the share floor (`shortQueryWords`). */
  short?: boolean;
  /** Changed-code only: how precisely the entry's anchors touch the change. */
  touch?: TouchLevel;
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

/** A lexical hit as the index returns it, with the share of the query's idf weight it matched, that weight in units of a one-entry term's idf, and the query's number of distinct words. */
export type LexicalHit = { id: string; score: number; matchedShare: number; evidence: number; queryWords?: number };

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

/** True when a lexical signal clears the lexical floor: enough evidence (or most of the query matched), close enough to the best. */
function lexicalRelevant(s: { matched: number; evidence: number; relative: number; short: boolean }, params: FusionParams): boolean {
  return (s.evidence >= params.evidenceFloor || (s.short && s.matched >= params.lexicalFloor)) && s.relative >= params.relativeFloor;
}

const isShort = (h: LexicalHit, params: FusionParams): boolean => (h.queryWords ?? 0) <= params.shortQueryWords;

/** Rank lexical hits (given best first; ties share a rank) and mark those above the lexical floor. */
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
      evidence: h.evidence,
      relative,
      short: isShort(h, params),
      relevant: lexicalRelevant({ matched: h.matchedShare, evidence: h.evidence, relative, short: isShort(h, params) }, params),
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
 * Fuse ranked lists: the lexical and vector lists add `weight / (k + rank)` to their entries, the
 * changed-code list `weight × strength / (k + 1)` (its strength says how precise the touch is, a
 * rank would not); `vectorWeight` is the weight for this query (`vectorWeightFor`). A list with
 * weight 0 adds neither score, candidates nor relevance, but its signals are still attached to the
 * other lists' hits for `explain`. Ties are broken by ascending id, so output is deterministic.
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
      hit.score += kind === "anchor" ? (weight * signal.score) / (params.k + 1) : weight / (params.k + signal.rank);
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

const pct = (x: number): string => `${Math.round(x * 100)}%`;

/** Why a hit is below the relevance floor, one reason per signal, in words a reviewer can act on. */
export function floorReasons(hit: FusedHit, params: FusionParams = DEFAULT_FUSION, vectorWeight = 0): string[] {
  if (hit.relevant) return [];
  const reasons: string[] = [];
  const { lexical, vector, anchor } = hit;
  if (!lexical) reasons.push("no query term matched");
  else {
    const matched = lexical.matched ?? 0;
    const evidence = lexical.evidence ?? 0;
    if (evidence < params.evidenceFloor && !(lexical.short && matched >= params.lexicalFloor)) {
      reasons.push(
        lexical.short
          ? `matched terms too weak: evidence ${evidence.toFixed(2)} < ${params.evidenceFloor} and ${pct(matched)} of the query's weight < ${pct(params.lexicalFloor)}`
          : `matched terms too weak: evidence ${evidence.toFixed(2)} < ${params.evidenceFloor} (${pct(matched)} of a long query's weight does not count on its own)`,
      );
    }
    if ((lexical.relative ?? 0) < params.relativeFloor) reasons.push(`lexical score ${pct(lexical.relative ?? 0)} of the best < ${pct(params.relativeFloor)}`);
  }
  if (anchor) reasons.push(`anchors touch the change only at level "${anchor.touch ?? "?"}" (a glob, a directory or elsewhere in the file is not evidence on its own)`);
  if (vector && vectorWeight > 0) reasons.push(`cosine ${vector.score.toFixed(3)} < ${params.vectorFloor}`);
  return reasons;
}
