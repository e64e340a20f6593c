/** Hybrid search over the index: lexical + vector + changed-file signals, fused, floored, explained. */
import { isPhrase, isShingle } from "../indexing/lexical/index.js";
import type { SearchIndex } from "../indexing/search-index.js";
import { agentFilter, type DeclaredAgents } from "./agents.js";
import { anchorSignals, type TouchLevel } from "./changed-files.js";
import type { ChangedFile } from "./diff.js";
import { DEFAULT_FUSION, floorReasons, fuse, lexicalSignals, vectorSignals, vectorWeightFor, type FusedHit, type FusionParams, type LexicalHit, type RankedSignal } from "./fusion.js";

export type SearchOptions = {
  /** Maximum results. Default 10. */
  limit?: number;
  /** Include archived entries. Default false. */
  includeArchived?: boolean;
  /** Statuses excluded unless listed here. Default: `disputed` and `superseded` are included in search (flagged), excluded by inject. */
  excludeStatuses?: string[];
  /** Entries never returned and not counted for the relevance floor (e.g. the ones the inject gate withheld). Default none. */
  excludeIds?: readonly string[];
  /** Only entries meant for this agent: by name, glob or declared domain (entries without `agents:` match every agent). Default: no agent filter. */
  agent?: string;
  /** Changed file paths: entries whose anchors touch them are boosted. Default none. */
  changedFiles?: string[];
  /** Changed files with their hunks (from a unified diff, `parseDiffEvidence`): anchors on changed lines or symbols count as strong evidence. Default none. */
  changedHunks?: ChangedFile[];
  /** Also return the best candidates below the relevance floor, each with the reasons it was cut (`belowFloor`). Default false. */
  explain?: boolean;
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
    /** BM25F rank and score; `matched`: share of the query's idf weight matched; `evidence`: that weight in units of the idf of a term found in one entry; `relative`: score / best lexical score (always set by hybridSearch). */
    lexical?: { rank: number; score: number; matched: number; evidence?: number; relative?: number };
    /** Vector rank and cosine; `weight`: the vector list's fusion weight for this query (0 when gated off; always set by hybridSearch). */
    vector?: { rank: number; similarity: number; weight?: number };
    /** How precisely the entry's anchors touch the change (`hunk`, `symbol`, `file`, `elsewhere`, `glob`, `directory`) and the strength that adds. */
    changedFiles?: { rank: number; touch: TouchLevel; strength: number };
    /** Above the relevance floor (a result below it is shown only with `floor: false` or in `belowFloor`). */
    relevant: boolean;
    /** Why the entry is below the relevance floor (set on results below it). */
    cut?: string[];
  };
};

export type SearchResponse = {
  results: SearchResult[];
  warnings: string[];
  mode: "hybrid" | "lexical";
  /** With `explain`: the best candidates below the relevance floor, best first, each with `explain.cut`. */
  belowFloor?: SearchResult[];
};

/** Candidates below the floor listed by `explain`. */
const BELOW_FLOOR_SHOWN = 5;

/** `declared`: cairn.config.json's `agents`, which gives agents their domains for the agent filter. */
export async function hybridSearch(index: SearchIndex, query: string, options: SearchOptions = {}, declared: DeclaredAgents = {}, configuredWeight = 0): Promise<SearchResponse> {
  // The configured weight ranks only vectors the index holds (it holds them only when the weight is above 0).
  const params = options.fusion ?? (configuredWeight > 0 ? { ...DEFAULT_FUSION, vectorWeight: configuredWeight } : DEFAULT_FUSION);
  const limit = options.limit ?? 10;
  const excluded = new Set(options.excludeStatuses ?? []);
  const meantFor = options.agent ? agentFilter(options.agent, declared) : undefined;
  const excludedIds = new Set(options.excludeIds ?? []);
  const filter = (id: string): boolean => {
    const meta = index.meta(id);
    if (!meta || excludedIds.has(id)) return false;
    if (options.ids && !options.ids.has(id)) return false;
    if (meta.state === "archived" && !options.includeArchived) return false;
    if (excluded.has(meta.status)) return false;
    if (meantFor && !meantFor(meta.agents)) return false;
    return true;
  };

  await index.loadLexical();
  const lexical = lexicalSignals(lexicalHits(index, query, params.depth, filter), params);
  const vectorWeight = vectorWeightFor(query, params);
  let vector: RankedSignal[] | undefined;
  // With no ranking weight the vector list only informs `explain` and finding matching: embed the
  // query only when a caller asks for those (withVectors) or the list actually ranks.
  if (index.embedder && query.trim() && (vectorWeight > 0 || options.withVectors)) {
    const qv = await index.embedQuery(query);
    if (qv) vector = vectorSignals(index.vectorSearch(qv, params.depth, filter), params);
  }
  const hunks = options.changedHunks ?? [];
  const paths = [...new Set([...(options.changedFiles ?? []), ...hunks.flatMap((f) => (f.oldPath ? [f.path, f.oldPath] : [f.path]))])];
  const anchor = paths.length
    ? anchorSignals(index.ids().filter(filter).map((id) => ({ id, anchors: index.meta(id)?.anchors ?? [] })), { paths, files: hunks })
    : undefined;

  const fused = fuse({ lexical, ...(vector ? { vector } : {}), ...(anchor ? { anchor } : {}) }, params, vectorWeight);
  const weight = vector ? vectorWeight : 0;
  const kept = options.floor === false ? fused : fused.filter((h) => h.relevant);
  const below = options.explain && options.floor !== false ? fused.filter((h) => !h.relevant).slice(0, BELOW_FLOOR_SHOWN) : undefined;
  return {
    results: kept.slice(0, limit).map((hit) => toResult(index, hit, weight, params)),
    warnings: [...index.warnings],
    mode: vector ? "hybrid" : "lexical",
    ...(below ? { belowFloor: below.map((hit) => toResult(index, hit, weight, params)) } : {}),
  };
}

/** Lexical hits with the idf weight of the query terms each one matches: as a share of the query's, and as evidence (for the relevance floor). */
function lexicalHits(index: SearchIndex, query: string, depth: number, filter: (id: string) => boolean): LexicalHit[] {
  const hits = index.lexicalSearch(query, depth, filter);
  if (!hits.length) return [];
  return matchedWeights(hits, index.lexicalQueryWeights(query), index.lexicalSize);
}

/**
 * Per hit, the idf weight of the query terms it matches: as a share of the query's words, and as
 * evidence in units of the idf of a term found in a single entry — "how many
 * distinctive terms' worth" (squaring each term's share to discount common words was measured and
 * lost Hit@5 on prose: bench/retrieval-floor.ts).
 */
export function matchedWeights(hits: ReadonlyArray<{ id: string; score: number; matched?: string[] }>, weights: ReadonlyMap<string, number>, entries: number): LexicalHit[] {
  // The share counts words and identifiers only: phrases and code shingles reward word order in
  // ranking, and an entry holding every word of the query has matched all of it whatever the order.
  const isWord = (t: string) => !isPhrase(t) && !isShingle(t);
  let total = 0;
  let queryWords = 0;
  for (const [t, w] of weights) {
    if (!isWord(t)) continue;
    total += w;
    queryWords++;
  }
  const n = Math.max(1, entries);
  const unit = Math.log(1 + (n - 0.5) / 1.5); // the idf of a term found in exactly one entry (as Postings computes idf)
  return hits.map((h) => {
    let matched = 0;
    let words = 0;
    for (const t of h.matched ?? []) {
      const w = weights.get(t) ?? 0;
      matched += w;
      if (isWord(t)) words += w;
    }
    return { id: h.id, score: h.score, matchedShare: total > 0 ? words / total : 0, evidence: matched / unit, queryWords };
  });
}

function toResult(index: SearchIndex, hit: FusedHit, vectorWeight: number, params: FusionParams): SearchResult {
  const meta = index.meta(hit.id)!;
  const { lexical, vector, anchor } = hit;
  const cut = hit.relevant ? [] : floorReasons(hit, params, vectorWeight);
  return {
    id: hit.id,
    path: meta.path,
    state: meta.state,
    score: Number(hit.score.toFixed(6)),
    status: meta.status,
    explain: {
      ...(lexical ? { lexical: { rank: lexical.rank, score: round(lexical.score), matched: round(lexical.matched ?? 0), evidence: round(lexical.evidence ?? 0), relative: round(lexical.relative ?? 0) } } : {}),
      ...(vector ? { vector: { rank: vector.rank, similarity: round(vector.score), weight: round(vectorWeight) } } : {}),
      ...(anchor?.touch ? { changedFiles: { rank: anchor.rank, touch: anchor.touch, strength: anchor.score } } : {}),
      relevant: hit.relevant,
      ...(cut.length ? { cut } : {}),
    },
  };
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}
