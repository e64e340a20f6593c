/** Hybrid search over the index: lexical + vector + changed-file signals, fused, floored, explained. */
import type { SearchIndex } from "../indexing/search-index.js";
import { anchorSignals } from "./changed-files.js";
import { DEFAULT_FUSION, fuse, lexicalSignals, vectorSignals, vectorWeightFor, withFloor, type FusedHit, type FusionParams, type LexicalHit, type RankedSignal } from "./fusion.js";

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
  /** Only these entry ids (e.g. what one agent was shown in a run, to score a finding against each). Default: every entry. */
  ids?: ReadonlySet<string>;
  /** Drop results below the relevance floor. Default true. */
  floor?: boolean;
  /** Fusion parameters. Default DEFAULT_FUSION. */
  fusion?: FusionParams;
  /**
   * Embed the query and report cosine similarities even when the vector list has no ranking weight
   * (finding matching and --explain read them). Default false: a zero-weight vector list is skipped,
   * which spares the query embedding (~90 ms with USE-lite) and, in a fresh process, the model load.
   */
  withVectors?: boolean;
};

export type SearchResult = {
  id: string;
  path: string;
  state: "active" | "archived";
  score: number;
  status: string;
  /** Why the entry was chosen (always filled; printed with --explain). */
  explain: {
    /** BM25F rank and score; `matched`: share of the query's idf weight matched; `relative`: score / best lexical score (always set by hybridSearch). */
    lexical?: { rank: number; score: number; matched: number; relative?: number };
    /** Vector rank and cosine; `weight`: the vector list's fusion weight for this query (0 when gated off; always set by hybridSearch). */
    vector?: { rank: number; similarity: number; weight?: number };
    changedFiles?: { rank: number; touch: number };
    /** Above the relevance floor (a result below it is shown only with `floor: false`). */
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
    if (options.ids && !options.ids.has(id)) return false;
    if (meta.state === "archived" && !options.includeArchived) return false;
    if (excluded.has(meta.status)) return false;
    if (agent && meta.agents.length && !meta.agents.some((a) => a.toLowerCase() === agent)) return false;
    return true;
  };

  const lexical = lexicalSignals(lexicalHits(index, query, params.depth, filter), params);
  const vectorWeight = vectorWeightFor(query, params);
  let vector: RankedSignal[] | undefined;
  // With no ranking weight the vector list only informs `explain` and finding matching: embed the
  // query only when a caller asks for those (withVectors) or the list actually ranks.
  if (index.embedder && query.trim() && (vectorWeight > 0 || options.withVectors)) {
    const qv = await index.embedQuery(query);
    if (qv) vector = vectorSignals(index.vectorSearch(qv, params.depth, filter), params);
  }
  const changed = options.changedFiles ?? [];
  const anchor = changed.length
    ? anchorSignals(index.ids().filter(filter).map((id) => ({ id, anchorPaths: index.meta(id)?.anchorPaths ?? [] })), changed)
    : undefined;

  const fused = fuse({ lexical, ...(vector ? { vector } : {}), ...(anchor ? { anchor } : {}) }, params, vectorWeight);
  const kept = options.floor === false ? fused : withFloor(fused);
  return {
    results: kept.slice(0, limit).map((hit) => toResult(index, hit, vector ? vectorWeight : 0)),
    warnings: [...index.warnings],
    mode: vector ? "hybrid" : "lexical",
  };
}

/** Lexical hits with the share of the query's idf weight each one matches (for the relevance floor). */
function lexicalHits(index: SearchIndex, query: string, depth: number, filter: (id: string) => boolean): LexicalHit[] {
  const hits = index.lexicalSearch(query, depth, filter);
  if (!hits.length) return [];
  const weights = index.lexicalQueryWeights(query);
  const total = [...weights.values()].reduce((a, b) => a + b, 0) || 1;
  return hits.map((h) => ({
    id: h.id,
    score: h.score,
    matchedShare: (h.matched ?? []).reduce((sum, t) => sum + (weights.get(t) ?? 0), 0) / total,
  }));
}

function toResult(index: SearchIndex, hit: FusedHit, vectorWeight: number): SearchResult {
  const meta = index.meta(hit.id)!;
  const { lexical, vector, anchor } = hit;
  return {
    id: hit.id,
    path: meta.path,
    state: meta.state,
    score: Number(hit.score.toFixed(6)),
    status: meta.status,
    explain: {
      ...(lexical ? { lexical: { rank: lexical.rank, score: round(lexical.score), matched: round(lexical.matched ?? 0), relative: round(lexical.relative ?? 0) } } : {}),
      ...(vector ? { vector: { rank: vector.rank, similarity: round(vector.score), weight: round(vectorWeight) } } : {}),
      ...(anchor ? { changedFiles: { rank: anchor.rank, touch: anchor.score } } : {}),
      relevant: hit.relevant,
    },
  };
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}
