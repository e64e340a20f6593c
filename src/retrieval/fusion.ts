/** Weighted reciprocal-rank fusion of lexical, vector and changed-file signals, with a relevance floor. */

export type FusionParams = {
  /** RRF constant k: larger flattens the rank curve. Default 60. */
  k: number;
  /** Weight of the lexical (BM25) list. Default 1. */
  lexicalWeight: number;
  /** Weight of the vector list. Default 0.25 (see README "Retrieval quality" for the measurements). */
  vectorWeight: number;
  /** Weight of the list of entries whose anchors touch changed files. Default 1. */
  anchorWeight: number;
  /** Candidates taken from each list. Default 100. */
  depth: number;
  /** A lexical hit counts as relevant when its matched query weight reaches this share. Default 0.2. */
  lexicalFloor: number;
  /** A vector hit counts as relevant at or above this cosine similarity. Default 0.45. */
  vectorFloor: number;
};

export const DEFAULT_FUSION: Readonly<FusionParams> = {
  k: 60,
  lexicalWeight: 1,
  vectorWeight: 0.25,
  anchorWeight: 1,
  depth: 100,
  lexicalFloor: 0.2,
  vectorFloor: 0.45,
};

export type RankedSignal = { id: string; rank: number; score: number; relevant: boolean };

export type FusedHit = {
  id: string;
  score: number;
  lexical?: RankedSignal;
  vector?: RankedSignal;
  anchor?: RankedSignal;
  /** At least one signal is above its floor. */
  relevant: boolean;
};

/** Fuse ranked lists; ties are broken by id so output is deterministic. */
export function fuse(
  lists: { lexical?: RankedSignal[]; vector?: RankedSignal[]; anchor?: RankedSignal[] },
  params: FusionParams = DEFAULT_FUSION,
): FusedHit[] {
  const hits = new Map<string, FusedHit>();
  const add = (kind: "lexical" | "vector" | "anchor", list: RankedSignal[] | undefined, weight: number) => {
    if (!list || weight <= 0) return;
    for (const signal of list.slice(0, params.depth)) {
      const hit = hits.get(signal.id) ?? { id: signal.id, score: 0, relevant: false };
      hit[kind] = signal;
      hit.score += weight / (params.k + signal.rank);
      hit.relevant ||= signal.relevant;
      hits.set(signal.id, hit);
    }
  };
  add("lexical", lists.lexical, params.lexicalWeight);
  add("vector", lists.vector, params.vectorWeight);
  add("anchor", lists.anchor, params.anchorWeight);
  return [...hits.values()].sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
