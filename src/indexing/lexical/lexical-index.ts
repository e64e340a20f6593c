/** In-memory BM25F index with postings, incremental add/remove and deterministic ranking. */
import { CairnError } from "../../errors.js";
import { rm3 } from "./feedback.js";
import { Postings } from "./postings.js";
import { LEXICAL_FIELDS, resolveParams, type LexicalDoc, type LexicalParams, type LexicalParamsInput } from "./params.js";
import { parseSerialized, serializeIndex } from "./serialize.js";
import { topK } from "./top-k.js";
import { isPhrase, isShingle, tokenizeRegions } from "./tokenize.js";

/**
 * Frequencies of one term in one document as `[slot, count, slot, count, ...]`. Slots are
 * LEXICAL_FIELDS in order (the prose of each field), then the same fields for their code
 * regions: slot = field index + (code ? LEXICAL_FIELDS.length : 0).
 */
export type FieldTf = number[];

/** What the index keeps per document: per-term slot frequencies and per-slot lengths. */
export type DocTerms = { terms: Map<string, FieldTf>; lengths: number[] };

export const SLOT_COUNT = LEXICAL_FIELDS.length * 2;

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

/** Add one occurrence of a term in `slot` to its sparse frequencies. */
function bump(tf: FieldTf, slot: number): void {
  for (let i = 0; i < tf.length; i += 2) {
    if (tf[i] === slot) {
      tf[i + 1] = (tf[i + 1] ?? 0) + 1;
      return;
    }
  }
  tf.push(slot, 1);
}

export class LexicalIndex {
  readonly params: LexicalParams;
  readonly #postings = new Postings(SLOT_COUNT);
  readonly #slotWeights: number[];
  readonly #slotB: number[];

  constructor(params: LexicalParamsInput = {}) {
    this.params = resolveParams(params);
    const { fields, code } = this.params;
    this.#slotWeights = [...LEXICAL_FIELDS.map((f) => fields[f].weight), ...LEXICAL_FIELDS.map((f) => fields[f].weight * code.weight)];
    this.#slotB = [...LEXICAL_FIELDS.map((f) => fields[f].b), ...LEXICAL_FIELDS.map(() => code.b)];
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
    const terms = new Map<string, FieldTf>();
    const lengths = new Array<number>(SLOT_COUNT).fill(0);
    LEXICAL_FIELDS.forEach((field, f) => {
      const text = doc.fields[field];
      if (!text) return;
      for (const region of tokenizeRegions(text, this.params.tokenizer)) {
        const slot = region.code ? f + LEXICAL_FIELDS.length : f;
        for (const t of region.terms) {
          // Prose phrases ride on their words; counting them would penalise long prose twice.
          if (!isPhrase(t)) lengths[slot] = (lengths[slot] ?? 0) + 1;
          const tf = terms.get(t);
          if (tf) bump(tf, slot);
          else terms.set(t, [slot, 1]);
        }
      }
    });
    return { terms, lengths };
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
    const counts = new Map<string, number>();
    let code = false;
    for (const region of tokenizeRegions(query, this.params.tokenizer)) {
      code ||= region.code && region.terms.length > 0;
      for (const t of region.terms) counts.set(t, (counts.get(t) ?? 0) + 1);
    }
    const { queryTf, shingleWeight, phraseWeight } = this.params;
    for (const [t, n] of counts) {
      const tf = queryTf === "binary" ? 1 : queryTf === "log" ? 1 + Math.log(n) : n;
      counts.set(t, tf * (isShingle(t) ? shingleWeight : isPhrase(t) ? phraseWeight : 1));
    }
    return { weights: counts, code };
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
