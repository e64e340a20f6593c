/** Hybrid search over the index: lexical + vector + changed-file signals, fused, floored, explained. */
import { isPhrase, isShingle } from "../indexing/lexical/index.js";
import type { SearchIndex } from "../indexing/search-index.js";
import { agentFilter, type DeclaredAgents } from "./agents.js";
import { anchorSignals, type TouchLevel } from "./changed-files.js";
import type { ChangedFile } from "./diff.js";
import { DEFAULT_FUSION, floorReasons, fuse, lexicalSignals, vectorSignals, vectorWeightFor, type FusedHit, type LexicalHit, type RankedSignal } from "./fusion.js";
import type { FusionParams, SearchOptions, SearchResponse, SearchResult } from "../types/search.js";

export type { SearchOptions, SearchResponse, SearchResult } from "../types/search.js";

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
    const meta = index.facets(id);
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
    ? anchorSignals(
        index.ids().map((id) => {
          const anchors = index.anchorsOf(id)!;
          return { id, anchors: anchors.paths, placed: anchors.placed };
        }),
        { paths, files: hunks },
        filter,
      )
    : undefined;

  const fused = fuse({ lexical, ...(vector ? { vector } : {}), ...(anchor ? { anchor } : {}) }, params, vectorWeight);
  const weight = vector ? vectorWeight : 0;
  const kept = options.floor === false ? fused : fused.filter((h) => h.relevant);
  const below = options.explain && options.floor !== false ? fused.filter((h) => !h.relevant).slice(0, BELOW_FLOOR_SHOWN) : undefined;
  // Every near touch, not only the ones within the fused depth.
  const near = anchor ? new Set(anchor.filter((s) => s.touch && NEAR.has(s.touch)).map((s) => s.id)) : undefined;
  return {
    results: kept.slice(0, limit).map((hit) => toResult(index, hit, weight, params, near)),
    warnings: [...index.warnings],
    mode: vector ? "hybrid" : "lexical",
    ...(below ? { belowFloor: below.map((hit) => toResult(index, hit, weight, params, near)) } : {}),
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

/** Touches that put an entry's own code under review: its file (at any line) or a glob of it matches a changed file. */
const NEAR: ReadonlySet<TouchLevel> = new Set(["hunk", "symbol", "file", "elsewhere", "glob"]);

/** The entry cites files of its own and none of its anchors is near the change (see SearchResult `awayFromChange`). */
function awayFromChange(index: SearchIndex, id: string, near: ReadonlySet<string>): boolean {
  return !near.has(id) && (index.anchorsOf(id)?.paths.some((a) => !a.glob) ?? false);
}

/** `near`: when the search named changed files, the entries whose anchors are near the change. */
function toResult(index: SearchIndex, hit: FusedHit, vectorWeight: number, params: FusionParams, near?: ReadonlySet<string>): SearchResult {
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
      ...(near && awayFromChange(index, hit.id, near) ? { awayFromChange: true as const } : {}),
      relevant: hit.relevant,
      ...(cut.length ? { cut } : {}),
    },
  };
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}
