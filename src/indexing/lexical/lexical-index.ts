/** In-memory BM25F index with postings, incremental add/remove and deterministic ranking. */
import { CairnError } from "../../errors.js";
import {
  LEXICAL_FIELDS,
  resolveParams,
  type LexicalDoc,
  type LexicalParams,
  type LexicalParamsInput,
} from "./params.js";
import { rm3 } from "./feedback.js";
import { parseSerialized, serializeIndex } from "./serialize.js";
import { topK } from "./top-k.js";
import { isPhrase, isShingle, tokenize, tokenizeRegions } from "./tokenize.js";

/** Term frequency of one term in each field, in LEXICAL_FIELDS order. */
export type FieldTf = number[];

/** What the index keeps per document: per-term field frequencies and field lengths. */
export type DocTerms = { terms: Map<string, FieldTf>; lengths: number[] };

export type SearchOptions = {
  /** Maximum number of hits. Default 10. */
  limit?: number;
  /** Only ids for which this returns true are returned. Default: all. */
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

const FIELD_COUNT = LEXICAL_FIELDS.length * 2;

export class LexicalIndex {
  readonly params: LexicalParams;
  readonly #docs = new Map<string, DocTerms>();
  readonly #postings = new Map<string, Map<string, FieldTf>>();
  readonly #lengthSums: number[] = new Array<number>(FIELD_COUNT).fill(0);

  constructor(params: LexicalParamsInput = {}) {
    this.params = resolveParams(params);
  }

  get size(): number {
    return this.#docs.size;
  }

  has(id: string): boolean {
    return this.#docs.has(id);
  }

  ids(): string[] {
    return [...this.#docs.keys()];
  }

  /** Tokenize a document's fields into the per-term field frequencies the index stores. */
  analyze(doc: LexicalDoc): DocTerms {
    const terms = new Map<string, FieldTf>();
    const lengths = new Array<number>(FIELD_COUNT).fill(0);
    LEXICAL_FIELDS.forEach((field, f) => {
      const text = doc.fields[field];
      if (!text) return;
      for (const region of tokenizeRegions(text, this.params.tokenizer)) {
      const slot = region.code && process.env["SUB"] ? f + 6 : f;
      const tokens = region.terms;
      lengths[slot] = (lengths[slot] ?? 0) + tokens.filter((t) => !isPhrase(t)).length;
      for (const t of tokens) {
        let tf = terms.get(t);
        if (!tf) {
          tf = new Array<number>(FIELD_COUNT).fill(0);
          terms.set(t, tf);
        }
        tf[slot] = (tf[slot] ?? 0) + 1;
      }
      }
    });
    return { terms, lengths };
  }

  /** Add a document, replacing any document with the same id. */
  add(doc: LexicalDoc): void {
    if (typeof doc.id !== "string" || doc.id === "") {
      throw new CairnError("INVALID", `Cannot index a lexical document without an id: expected a non-empty string, got ${JSON.stringify(doc.id)}`);
    }
    this.addAnalyzed(doc.id, this.analyze(doc));
  }

  /** Add a document that was already analyzed (used when loading a persisted index). */
  addAnalyzed(id: string, analyzed: DocTerms): void {
    this.remove(id);
    this.#docs.set(id, analyzed);
    analyzed.lengths.forEach((len, f) => {
      this.#lengthSums[f] = (this.#lengthSums[f] ?? 0) + len;
    });
    for (const [term, tf] of analyzed.terms) {
      let list = this.#postings.get(term);
      if (!list) {
        list = new Map();
        this.#postings.set(term, list);
      }
      list.set(id, tf);
    }
  }

  /** Remove a document; removing an unknown id does nothing. */
  remove(id: string): void {
    const doc = this.#docs.get(id);
    if (!doc) return;
    this.#docs.delete(id);
    doc.lengths.forEach((len, f) => {
      this.#lengthSums[f] = (this.#lengthSums[f] ?? 0) - len;
    });
    for (const term of doc.terms.keys()) {
      const list = this.#postings.get(term);
      list?.delete(id);
      if (list && list.size === 0) this.#postings.delete(term);
    }
  }

  /** The stored analysis of one document, for persistence; undefined when absent. */
  docTerms(id: string): DocTerms | undefined {
    return this.#docs.get(id);
  }

  /** Number of documents containing `term` (already tokenized). */
  documentFrequency(term: string): number {
    return this.#postings.get(term)?.size ?? 0;
  }

  /** Query term weights: each distinct term of the tokenized query, weighted by its frequency. */
  queryTerms(query: string): Map<string, number> {
    const counts = new Map<string, number>();
    for (const t of tokenize(query, this.params.tokenizer)) counts.set(t, (counts.get(t) ?? 0) + 1);
    const mode = this.params.queryTf;
    const { shingleWeight, phraseWeight } = this.params;
    for (const [t, n] of counts) {
      const tf = mode === "binary" ? 1 : mode === "log" ? 1 + Math.log(n) : n;
      counts.set(t, isShingle(t) ? shingleWeight * tf : isPhrase(t) ? phraseWeight * tf : tf);
    }
    return counts;
  }

  /** BM25F scores of every document matching at least one weighted term (OR semantics). */
  scoreTerms(weights: ReadonlyMap<string, number>): Map<string, number> {
    const n = this.#docs.size;
    const scores = new Map<string, number>();
    if (n === 0) return scores;
    const fieldParams = [...LEXICAL_FIELDS.map((f) => this.params.fields[f]), ...LEXICAL_FIELDS.map((f) => ({ weight: this.params.fields[f].weight * Number(process.env["CWT"] ?? 1), b: Number(process.env["CB"] ?? this.params.fields[f].b) }))];
    const avg = this.#lengthSums.map((sum) => sum / n);
    for (const [term, qw] of weights) {
      const list = this.#postings.get(term);
      if (!list || qw <= 0) continue;
      const idf = Math.log(1 + (n - list.size + 0.5) / (list.size + 0.5)) ** (isShingle(term) ? Number(process.env["IDFS"] ?? 1) : Number(process.env["IDFP"] ?? 1));
      const k1 = isShingle(term) ? Number(process.env["K1S"] ?? this.params.k1) : this.params.k1;
      for (const [id, tf] of list) {
        const lengths = this.#docs.get(id)?.lengths;
        let pseudoTf = 0;
        for (let f = 0; f < FIELD_COUNT; f++) {
          const count = tf[f] ?? 0;
          const p = fieldParams[f];
          const avgLen = avg[f] ?? 0;
          if (count === 0 || !p || avgLen === 0) continue;
          const norm = 1 - p.b + (p.b * (lengths?.[f] ?? 0)) / avgLen;
          pseudoTf += (p.weight * count) / norm;
        }
        const score = (qw * idf * (pseudoTf * (k1 + 1))) / (pseudoTf + k1);
        scores.set(id, (scores.get(id) ?? 0) + score);
      }
    }
    return scores;
  }

  /** Rank documents for a query: BM25F, OR semantics, ties broken by ascending id. */
  search(query: string, options: SearchOptions = {}): SearchHit[] {
    const weights = this.queryTerms(query);
    const scores = this.scoreTerms(weights);
    const fb = this.params.feedback;
    const codeShare = tokenizeRegions(query, this.params.tokenizer).reduce((a, r) => a + (r.code ? r.terms.length : 0), 0);
    if (fb.docs <= 0 || (process.env["GATE"] && codeShare > 0)) return this.rank(weights, scores, options);
    const expanded = rm3(weights, scores, (id) => this.#docs.get(id), (t) => this.documentFrequency(t), this.size, fb);
    return this.rank(weights, this.scoreTerms(expanded), options);
  }

  /** Turn raw scores into sorted, filtered, limited hits with their matched terms. */
  rank(weights: ReadonlyMap<string, number>, scores: ReadonlyMap<string, number>, options: SearchOptions = {}): SearchHit[] {
    const top = topK(scores, options.limit ?? 10, options.filter);
    return top.map(([id, score], i) => ({
      id,
      score,
      rank: i + 1,
      matched: [...weights.keys()].filter((t) => this.#postings.get(t)?.has(id)),
    }));
  }

  /** A versioned, JSON-safe snapshot (parameters + per-document term frequencies). */
  toJSON(): unknown {
    return serializeIndex(this.params, this.#docs);
  }

  /** Load a snapshot made by toJSON; throws CairnError INVALID when it is not one or is outdated. */
  static fromJSON(data: unknown): LexicalIndex {
    const { params, docs } = parseSerialized(data);
    const index = new LexicalIndex(params);
    for (const [id, analyzed] of docs) index.addAnalyzed(id, analyzed);
    return index;
  }
}
