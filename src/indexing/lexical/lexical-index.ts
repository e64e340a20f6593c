/** In-memory BM25F index with postings, incremental add/remove and deterministic ranking. */
import { CairnError } from "../../errors.js";
import { rm3 } from "./feedback.js";
import { Postings } from "./postings.js";
import { resolveParams, type LexicalDoc, type LexicalParams, type LexicalParamsInput } from "./params.js";
import { parseSerialized, serializeIndex } from "./serialize.js";
import { topK } from "./top-k.js";
import { analyzeDoc, SLOTS, slotWeights, weighQuery } from "./analyze.js";

/**
 * Frequencies of one term in one document as `[slot, count, slot, count, ...]`. Slots are
 * LEXICAL_FIELDS in order (the prose of each field), then the same fields for their code
 * regions: slot = field index + (code ? LEXICAL_FIELDS.length : 0).
 */
export type FieldTf = number[];

/** What the index keeps per document: per-term slot frequencies and per-slot lengths. */
export type DocTerms = { terms: Map<string, FieldTf>; lengths: number[] };

export const SLOT_COUNT = SLOTS;

export type SearchOptions = {
  /** Maximum number of hits. Default 10. */
  limit?: number;
  /** Only ids for which this returns true are returned (and used for feedback). Default: all. */
  filter?: (id: string) => boolean;
};

export type SearchHit = {
  id: string;
  score: number;
  /** 1-based position in the result list. */
  rank: number;
  /** Query terms found in the document, in query order. */
  matched?: string[];
};

/** A tokenized, weighted query: distinct terms → weight; `code` when any part of it is code. */
export type WeightedQuery = { weights: Map<string, number>; code: boolean };

export class LexicalIndex {
  readonly params: LexicalParams;
  readonly #postings = new Postings(SLOT_COUNT);
  readonly #slotWeights: number[];
  readonly #slotB: number[];

  constructor(params: LexicalParamsInput = {}) {
    this.params = resolveParams(params);
    const { weights, bs } = slotWeights(this.params);
    this.#slotWeights = weights;
    this.#slotB = bs;
  }

  get size(): number {
    return this.#postings.size;
  }

  has(id: string): boolean {
    return this.#postings.has(id);
  }

  /** Ids of all indexed documents. */
  ids(): string[] {
    return this.#postings.ids();
  }

  /** Tokenize a document's fields into the per-slot term frequencies the index stores. */
  analyze(doc: LexicalDoc): DocTerms {
    return analyzeDoc(this.params, doc);
  }

  /** Add a document, replacing any document with the same id. */
  add(doc: LexicalDoc): void {
    if (typeof doc.id !== "string" || doc.id === "") {
      throw new CairnError(
        "INVALID",
        `Cannot index a lexical document without an id: expected a non-empty string, got ${JSON.stringify(doc.id)}`,
      );
    }
    this.#postings.add(doc.id, this.analyze(doc));
  }

  /** Add a document that was already analyzed (used when loading a persisted index). */
  addAnalyzed(id: string, analyzed: DocTerms): void {
    this.#postings.add(id, analyzed);
  }

  /** Remove a document; removing an unknown id does nothing. */
  remove(id: string): void {
    this.#postings.remove(id);
  }

  /** The stored analysis of one document; undefined when absent. */
  docTerms(id: string): DocTerms | undefined {
    return this.#postings.doc(id);
  }

  /** Number of documents containing an (already tokenized) term. */
  documentFrequency(term: string): number {
    return this.#postings.df(term);
  }

  /** Tokenize a query into distinct terms weighted by query frequency and term kind. */
  weighQuery(query: string): WeightedQuery {
    return weighQuery(this.params, query);
  }

  /** Query term → weight (the terms of weighQuery, without the code flag). */
  queryTerms(query: string): Map<string, number> {
    return this.weighQuery(query).weights;
  }

  /** BM25F scores of every document matching at least one weighted term (OR semantics). */
  scoreTerms(weights: ReadonlyMap<string, number>): Map<string, number> {
    return new Map(this.#score(weights));
  }

  #score(weights: ReadonlyMap<string, number>): Array<[string, number]> {
    const k1 = this.params.k1;
    return this.#postings.accumulate(weights, this.#slotWeights, this.#slotB, (pseudoTf, idf, qw) =>
      (qw * idf * pseudoTf * (k1 + 1)) / (pseudoTf + k1),
    );
  }

  /** Rank documents for a query: BM25F, OR semantics, RM3 for prose queries, ties by ascending id. */
  search(query: string, options: SearchOptions = {}): SearchHit[] {
    const { weights, code } = this.weighQuery(query);
    const scores = this.#score(weights);
    const fb = this.params.feedback;
    if (fb.docs <= 0 || fb.terms <= 0 || (code && fb.skipCodeQueries)) return this.#hits(weights, scores, options);
    const stats = {
      docTerms: (id: string) => this.docTerms(id),
      docFreq: (t: string) => this.documentFrequency(t),
      size: this.size,
      filter: options.filter,
    };
    return this.#hits(weights, this.#score(rm3(weights, scores, stats, fb)), options);
  }

  #hits(weights: ReadonlyMap<string, number>, scores: Iterable<[string, number]>, options: SearchOptions): SearchHit[] {
    return topK(scores, options.limit ?? 10, options.filter).map(([id, score], i) => {
      const terms = this.#postings.doc(id)?.terms;
      return { id, score, rank: i + 1, matched: [...weights.keys()].filter((t) => terms?.has(t)) };
    });
  }

  /** A versioned, JSON-safe snapshot (parameters + per-document term frequencies). */
  toJSON(): unknown {
    return serializeIndex(this.params, this.#postings.entries());
  }

  /** Load a snapshot made by toJSON; throws CairnError INVALID when it is not one or is outdated. */
  static fromJSON(data: unknown): LexicalIndex {
    const { params, docs } = parseSerialized(data);
    const index = new LexicalIndex(params);
    for (const [id, analyzed] of docs) index.addAnalyzed(id, analyzed);
    return index;
  }
}
