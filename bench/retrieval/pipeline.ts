/**
 * The product's search and inject pipeline over a benchmark set, piece by piece so a floor sweep
 * costs one tokenization per query: cairn's lexical index, `matchedWeights` (evidence), the
 * changed-code signal, `fuse`, the relevance floor and inject's merge of its two searches — all
 * imported from src/, nothing re-implemented. Signals are collected once per query and decided
 * under many parameter settings.
 */
import type { AnchorRef } from "../../src/indexing/document.js";
import { LexicalIndex, type LexicalDoc, type LexicalParamsInput } from "../../src/indexing/lexical/index.js";
import { queryWeights } from "../../src/indexing/lexical/query-weights.js";
import { anchorSignals, type ChangeSet } from "../../src/retrieval/changed-files.js";
import { fuse, lexicalSignals, type FusedHit, type FusionParams, type LexicalHit, type RankedSignal } from "../../src/retrieval/fusion.js";
import { KEYWORD_FOCUS_WEIGHT, mergeRanked } from "../../src/retrieval/focus.js";
import { matchedWeights } from "../../src/retrieval/search.js";
import type { BenchDoc } from "./dataset.js";

/** How one query is asked: the full query, inject's keywords-only query, and what changed. */
export type Probe = { full: string; keywords?: string; change?: ChangeSet };

/** Signals of one probe, collected once. */
export type Collected = { full: LexicalHit[]; keywords?: LexicalHit[]; anchor?: RankedSignal[] };

/** A set as the pipeline sees it: the entry fields of each document and its anchors. */
export type PipelineSet = { docs: readonly BenchDoc[]; toDoc: (doc: BenchDoc) => LexicalDoc; anchorsOf?: (id: string) => AnchorRef[] };

/** Lexical hits with matched share and evidence, exactly as `hybridSearch` computes them. */
export function lexicalHitsOf(index: LexicalIndex, query: string, depth: number): LexicalHit[] {
  if (!query.trim()) return [];
  return matchedWeights(index.search(query, { limit: depth }), queryWeights(index, query), index.size);
}

export function buildIndex(set: PipelineSet, params: LexicalParamsInput = {}): LexicalIndex {
  const index = new LexicalIndex(params);
  for (const doc of set.docs) index.add(set.toDoc(doc));
  return index;
}

/** Collect one probe's signals against `index`; `present` says which documents are in it (for the changed-code signal). */
export function collect(index: LexicalIndex, set: PipelineSet, probe: Probe, depth: number, present: (id: string) => boolean = () => true): Collected {
  const anchor =
    probe.change && set.anchorsOf
      ? anchorSignals(
          set.docs.filter((d) => present(d.id)).map((d) => ({ id: d.id, anchors: set.anchorsOf!(d.id) })),
          probe.change,
        )
      : undefined;
  return {
    full: lexicalHitsOf(index, probe.full, depth),
    ...(probe.keywords ? { keywords: lexicalHitsOf(index, probe.keywords, depth) } : {}),
    ...(anchor?.length ? { anchor } : {}),
  };
}

/** One search as `hybridSearch` runs it (lexical + changed code, no vectors): fused hits, floored or not. */
export function searchOf(hits: readonly LexicalHit[], anchor: RankedSignal[] | undefined, params: FusionParams, floor: boolean): FusedHit[] {
  const fused = fuse({ lexical: lexicalSignals(hits, params), ...(anchor ? { anchor } : {}) }, params, 0);
  return floor ? fused.filter((h) => h.relevant) : fused;
}

/**
 * What inject would hand over (`cap` entries at most): the full query's results above the floor,
 * the first `window` of them re-ranked with the keywords-only results as `focusResponses` does
 * (window = the slots; `Infinity` is the merge before phase 2, which could change the set).
 * Unfloored: the full query's ranking alone (the reference the floor is measured against).
 */
export function decide(c: Collected, params: FusionParams, floor: boolean, cap = 5, window = cap): string[] {
  const full = searchOf(c.full, c.anchor, params, floor);
  if (!c.keywords || !floor) return full.slice(0, cap).map((h) => h.id);
  const head = full.slice(0, window);
  const supported = new Set(head.map((h) => h.id));
  const keywords = searchOf(c.keywords, c.anchor, params, floor).filter((h) => supported.has(h.id));
  return [...mergeRanked([head, keywords], [1, KEYWORD_FOCUS_WEIGHT]).map(({ item }) => item), ...full.slice(window)]
    .slice(0, cap)
    .map((h) => h.id);
}

/**
 * Collect each probe twice: against the whole set, and against the set without that query's
 * relevant documents (removed from the index, so idf and lengths are exact, then put back).
 */
export function collectBothWays(
  set: PipelineSet,
  probes: ReadonlyArray<{ id: string; probe: Probe; relevant: ReadonlySet<string> }>,
  depth: number,
  params: LexicalParamsInput = {},
): { withRelevant: Map<string, Collected>; withoutRelevant: Map<string, Collected> } {
  const index = buildIndex(set, params);
  const byId = new Map(set.docs.map((d) => [d.id, d]));
  const withRelevant = new Map<string, Collected>();
  const withoutRelevant = new Map<string, Collected>();
  for (const { id, probe, relevant } of probes) {
    withRelevant.set(id, collect(index, set, probe, depth));
    for (const doc of relevant) index.remove(doc);
    withoutRelevant.set(id, collect(index, set, probe, depth, (d) => !relevant.has(d)));
    for (const doc of relevant) {
      const d = byId.get(doc);
      if (d) index.add(set.toDoc(d));
    }
  }
  return { withRelevant, withoutRelevant };
}
