/**
 * Weighted reciprocal-rank fusion of lexical, vector and changed-file signals, with a relevance floor.
 * The benchmarked defaults were chosen on the odd query ids of the retrieval benchmark and checked
 * on the even ids (`npx tsx bench/retrieval-hybrid.ts`, results in bench/results/retrieval-hybrid.json).
 */
import { splitRegions } from "../indexing/lexical/index.js";
import type { TouchLevel } from "./changed-files.js";

export type FusionParams = {
  /** RRF constant k: larger flattens the rank curve. Default 60 (the usual RRF constant; with no vector weight no benchmark moves it: it only trades changed-file ranks against lexical ranks). */
  k: number;
  /** Weight of the lexical (BM25F) list. Default 1 (the reference the other weights are relative to). */
  lexicalWeight: number;
  /** Weight of the vector list for an all-prose query. Default 0: USE-lite has not earned a weight (near chance on review-clippy; on cranfield the best tuned weight gains ≤ 0.003 on the odd ids and loses Recall@5 and Hit@5 on the even ids). */
  vectorWeight: number;
  /** Scale the vector weight by the prose share of the query (`prose`) or not (`none`); matters when vectorWeight > 0. Default "prose" (at weight 0.15, ungated vectors cost review-clippy 0.009 nDCG@10). */
  vectorGate: "prose" | "none";
  /** Weight of the changed-code signal: an entry adds `anchorWeight × strength / (k + 1)`, strength by how precisely its anchors touch the change (TOUCH_STRENGTH). Default 1 (a hunk-level touch ties a lexical first place). */
  anchorWeight: number;
  /** Candidates taken from each list. Default 100. */
  depth: number;
  /**
   * A lexical hit needs evidence: the idf weight of the query terms it matches, in units of the
   * idf of a term found in a single entry, at least this much...
   * Default 1.25 (floor study, bench/retrieval-floor.ts: keeps ≥ 98% of the unfloored Hit@5 on every
   * tuning half, prose and code, plain and inject-style queries, then cuts the most). Unlike a share
   * of the query, it does not fall as queries grow: a long PR summary or a diff no longer starves the right entry.
   */
  evidenceFloor: number;
  /**
   * ...or, for a short query (at most `shortQueryWords` distinct words, e.g. an agent's keywords),
   * to hold at least this share of the idf weight of its words: in a small knowledge base one
   * matching keyword is the evidence there is. Default 0.2 (the old floor's share; the 30-run
   * simulation's keyword-only calls need it: test/e2e/simulation.test.ts). On long queries a share
   * admits entries that match common words of a long summary: it cost inject-style queries up to 11
   * points of Hit@5 kept in the floor study, so long queries must show evidence.
   */
  lexicalFloor: number;
  /** Queries of at most this many distinct words may pass by `lexicalFloor`. Default 6. */
  shortQueryWords: number;
  /** ...and a BM25F score at least this share of the best lexical score. Default 0.35 (same study: 0.5 cost prose sets up to 5% of their Hit@5). */
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
