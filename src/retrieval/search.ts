/** Hybrid search over the index: lexical + vector + changed-file signals, fused, floored, explained. */
import type { SearchIndex } from "../indexing/search-index.js";
import { anchorSignals } from "./changed-files.js";
import { DEFAULT_FUSION, fuse, type FusedHit, type FusionParams, type RankedSignal } from "./fusion.js";

export type SearchOptions = {
  /** Maximum results. Default 10. */
  limit?: number;
  /** Include archived entries. Default false. */
  includeArchived?: boolean;
  /** Statuses excluded unless listed here. Default: `disputed` and `superseded` are included in search (flagged), excluded by inject. */
  excludeStatuses?: string[];
  /** Only entries meant for this agent (entries without `agents:` match every agent). Default: no agent filter. */
  agent?: string;
  /** Changed file paths: entries whose anchors touch them are boosted. Default none. */
  changedFiles?: string[];
  /** Drop results below the relevance floor. Default true. */
  floor?: boolean;
  /** Fusion parameters. Default DEFAULT_FUSION. */
  fusion?: FusionParams;
};

export type SearchResult = {
  id: string;
  path: string;
  state: "active" | "archived";
  score: number;
  status: string;
  /** Why the entry was chosen (always filled; printed with --explain). */
  explain: {
    lexical?: { rank: number; score: number; matched: number };
    vector?: { rank: number; similarity: number };
    changedFiles?: { rank: number; touch: number };
    relevant: boolean;
  };
};

export type SearchResponse = { results: SearchResult[]; warnings: string[]; mode: "hybrid" | "lexical" };

export async function hybridSearch(index: SearchIndex, query: string, options: SearchOptions = {}): Promise<SearchResponse> {
  const params = options.fusion ?? DEFAULT_FUSION;
  const limit = options.limit ?? 10;
  const excluded = new Set(options.excludeStatuses ?? []);
  const agent = options.agent?.toLowerCase();
  const filter = (id: string): boolean => {
    const meta = index.meta(id);
    if (!meta) return false;
    if (meta.state === "archived" && !options.includeArchived) return false;
    if (excluded.has(meta.status)) return false;
    if (agent && meta.agents.length && !meta.agents.some((a) => a.toLowerCase() === agent)) return false;
    return true;
  };

  const lexical = lexicalSignals(index, query, params, filter);
  let vector: RankedSignal[] | undefined;
  if (index.embedder && params.vectorWeight > 0 && query.trim()) {
    const qv = await index.embedQuery(query);
    if (qv) {
      vector = index.vectorSearch(qv, params.depth, filter).map((h, i) => ({ id: h.id, rank: i + 1, score: h.similarity, relevant: h.similarity >= params.vectorFloor }));
    }
  }
  const changed = options.changedFiles ?? [];
  const anchor = changed.length
    ? anchorSignals(index.ids().filter(filter).map((id) => ({ id, anchorPaths: index.meta(id)?.anchorPaths ?? [] })), changed)
    : undefined;

  const fused = fuse({ lexical, ...(vector ? { vector } : {}), ...(anchor ? { anchor } : {}) }, params);
  const kept = options.floor === false ? fused : fused.filter((h) => h.relevant);
  return {
    results: kept.slice(0, limit).map((hit) => toResult(index, hit)),
    warnings: [...index.warnings],
    mode: vector ? "hybrid" : "lexical",
  };
}

/** Lexical hits with a floor: the share of the query's idf weight the document matches. */
function lexicalSignals(index: SearchIndex, query: string, params: FusionParams, filter: (id: string) => boolean): RankedSignal[] {
  const hits = index.lexicalSearch(query, params.depth, filter);
  if (!hits.length) return [];
  const weights = index.lexicalQueryWeights(query);
  const total = [...weights.values()].reduce((a, b) => a + b, 0) || 1;
  return hits.map((h) => {
    const matched = (h.matched ?? []).reduce((sum, t) => sum + (weights.get(t) ?? 0), 0);
    return { id: h.id, rank: h.rank, score: h.score, relevant: matched / total >= params.lexicalFloor, matchedShare: matched / total } as RankedSignal;
  });
}

function toResult(index: SearchIndex, hit: FusedHit): SearchResult {
  const meta = index.meta(hit.id)!;
  return {
    id: hit.id,
    path: meta.path,
    state: meta.state,
    score: Number(hit.score.toFixed(6)),
    status: meta.status,
    explain: {
      ...(hit.lexical ? { lexical: { rank: hit.lexical.rank, score: round(hit.lexical.score), matched: round((hit.lexical as RankedSignal & { matchedShare?: number }).matchedShare ?? 0) } } : {}),
      ...(hit.vector ? { vector: { rank: hit.vector.rank, similarity: round(hit.vector.score) } } : {}),
      ...(hit.anchor ? { changedFiles: { rank: hit.anchor.rank, touch: hit.anchor.score } } : {}),
      relevant: hit.relevant,
    },
  };
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}
