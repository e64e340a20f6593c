/**
 * The persisted lexical index: an immutable binary base segment (segment.ts) plus an in-memory
 * overlay of documents added or changed since, and tombstones for base documents removed or
 * replaced. Scores are exactly those of one in-memory LexicalIndex holding the same documents
 * (collection statistics — N, df, average lengths — combine both layers), so persisting in layers
 * never changes a ranking. Saving writes only the overlay; `compact()` folds it into a new base.
 */
import { CairnError } from "../../errors.js";
import { analyzeDoc, SLOTS, slotWeights, weighQuery } from "./analyze.js";
import type { DocTerms, FieldTf, SearchHit, WeightedQuery } from "./lexical-index.js";
import type { LexicalDoc, LexicalParams } from "./params.js";
import { compactLayers } from "./compact.js";
import { buildSegment, Segment, segmentSlotBits, segmentSlotMask, type SegmentDoc } from "./segment.js";
import { topKOf } from "./top-k.js";
import { TOKENIZER_VERSION } from "./tokenize.js";

/** A document of the overlay: its analysed terms and lengths, and the hash of the fields it came from. */
export type OverlayDoc = DocTerms & { hash: string };

/** The overlay as saved next to the base segment (JSON). */
export type LexicalDelta = {
  format: "cairn-lexical-delta";
  tokenizerVersion: number;
  /** Ids of base documents that are removed or replaced by an overlay document. */
  dead: string[];
  /** Term dictionary of `docs`. */
  terms: string[];
  /** [id, hash, lengths, flat [term index, slot, count, …]] */
  docs: Array<[string, string, number[], number[]]>;
};

export class LayeredLexical {
  readonly params: LexicalParams;
  readonly #base: Segment | null;
  readonly #weights: number[];
  readonly #bs: number[];
  /** Base document number → 1 when removed or replaced. */
  readonly #dead: Uint8Array;
  #deadCount = 0;
  readonly #baseSums = new Array<number>(SLOTS).fill(0);
  readonly #deadSums = new Array<number>(SLOTS).fill(0);
  #baseNums: Map<string, number> | undefined;
  readonly #overlay = new Map<string, OverlayDoc>();
  /** Term → overlay ids holding it. */
  readonly #overlayLists = new Map<string, Set<string>>();
  readonly #overlaySums = new Array<number>(SLOTS).fill(0);
  #scores = new Float64Array(0);
  #factors = new Float64Array(0);
  #factorEpoch = new Int32Array(0);
  #epoch = 1;
  #changed = false;

  constructor(params: LexicalParams, base: Segment | null = null) {
    if (params.feedback.docs > 0 && params.feedback.terms > 0) {
      throw new CairnError("INVALID", "The persisted lexical index does not support pseudo-relevance feedback (RM3); use an in-memory LexicalIndex for it");
    }
    this.params = params;
    this.#base = base;
    ({ weights: this.#weights, bs: this.#bs } = slotWeights(params));
    this.#dead = new Uint8Array(base?.size ?? 0);
    if (base) {
      // Integer sums (exact in any order), over the lengths read once.
      const lengths = base.lengths;
      const sums = new Float64Array(SLOTS);
      for (let num = 0; num < base.size; num++) for (let s = 0; s < SLOTS; s++) sums[s]! += lengths[num * SLOTS + s]!;
      sums.forEach((sum, s) => (this.#baseSums[s] = sum));
    }
  }

  /** Rebuild an index from its base segment and saved overlay; throws CairnError INVALID on a mismatch. */
  static restore(params: LexicalParams, base: Segment | null, delta: LexicalDelta | null): LayeredLexical {
    const index = new LayeredLexical(params, base);
    if (!delta) return index;
    if (delta.format !== "cairn-lexical-delta" || delta.tokenizerVersion !== TOKENIZER_VERSION) {
      throw new CairnError("INVALID", "The lexical index delta is from another version; it will be rebuilt");
    }
    for (const id of delta.dead) index.#kill(id);
    for (const [id, hash, lengths, flat] of delta.docs) {
      const terms = new Map<string, FieldTf>();
      for (let k = 0; k + 2 < flat.length; k += 3) {
        const term = delta.terms[flat[k]!];
        if (term === undefined) throw new CairnError("INVALID", `The lexical index delta refers to term ${flat[k]} it does not hold; it will be rebuilt`);
        const tf = terms.get(term);
        if (tf) tf.push(flat[k + 1]!, flat[k + 2]!);
        else terms.set(term, [flat[k + 1]!, flat[k + 2]!]);
      }
      index.#put(id, { hash, terms, lengths });
    }
    index.#changed = false;
    return index;
  }

  /** Release the file the base segment reads (a segment opened from a file). */
  close(): void {
    this.#base?.close();
  }

  /** Live documents. */
  get size(): number {
    return (this.#base?.size ?? 0) - this.#deadCount + this.#overlay.size;
  }

  /** True when documents were added or removed since the last `delta()` / `compact()`. */
  get changed(): boolean {
    return this.#changed;
  }

  /** Documents in the overlay and tombstones, the work a `compact()` would fold into the base. */
  get pending(): { overlay: number; dead: number; base: number } {
    return { overlay: this.#overlay.size, dead: this.#deadCount, base: this.#base?.size ?? 0 };
  }

  /** Hash of the fields the live document `id` was analyzed from; undefined when absent. */
  hashOf(id: string): string | undefined {
    const doc = this.#overlay.get(id);
    if (doc) return doc.hash;
    const num = this.#nums().get(id);
    return num === undefined || this.#dead[num] ? undefined : this.#base!.hash(num);
  }

  has(id: string): boolean {
    return this.hashOf(id) !== undefined;
  }

  /** Ids of all live documents. */
  ids(): string[] {
    const out: string[] = [];
    for (const [id, num] of this.#nums()) if (!this.#dead[num]) out.push(id);
    return out.concat([...this.#overlay.keys()]);
  }

  /** Add (or replace) a document analyzed from `doc`; `hash` identifies the fields it came from. */
  add(doc: LexicalDoc, hash: string): void {
    if (typeof doc.id !== "string" || doc.id === "") {
      throw new CairnError("INVALID", `Cannot index a lexical document without an id: expected a non-empty string, got ${JSON.stringify(doc.id)}`);
    }
    this.remove(doc.id);
    this.#put(doc.id, { ...analyzeDoc(this.params, doc), hash });
  }

  remove(id: string): void {
    const doc = this.#overlay.get(id);
    if (doc) {
      this.#overlay.delete(id);
      for (const term of doc.terms.keys()) {
        const list = this.#overlayLists.get(term);
        list?.delete(id);
        if (list && !list.size) this.#overlayLists.delete(term);
      }
      doc.lengths.forEach((len, s) => (this.#overlaySums[s] = (this.#overlaySums[s] ?? 0) - len));
      this.#touch();
    }
    this.#kill(id);
  }

  #put(id: string, doc: OverlayDoc): void {
    this.#overlay.set(id, doc);
    for (const term of doc.terms.keys()) {
      let list = this.#overlayLists.get(term);
      if (!list) this.#overlayLists.set(term, (list = new Set()));
      list.add(id);
    }
    doc.lengths.forEach((len, s) => (this.#overlaySums[s] = (this.#overlaySums[s] ?? 0) + len));
    this.#touch();
  }

  #kill(id: string): void {
    const num = this.#nums().get(id);
    if (num === undefined || this.#dead[num]) return;
    this.#dead[num] = 1;
    this.#deadCount++;
    const lengths = this.#base!.lengths;
    for (let s = 0; s < SLOTS; s++) this.#deadSums[s] = (this.#deadSums[s] ?? 0) + lengths[num * SLOTS + s]!;
    this.#touch();
  }

  #touch(): void {
    this.#epoch++;
    this.#changed = true;
  }

  /** Base ids → numbers, decoded on first need (updates, `has`), not on open. */
  #nums(): Map<string, number> {
    if (!this.#baseNums) {
      this.#baseNums = new Map();
      const ids = this.#base?.allIds() ?? [];
      for (let num = 0; num < ids.length; num++) this.#baseNums.set(ids[num]!, num);
    }
    return this.#baseNums;
  }

  /** Number of live documents holding an (already tokenized) term. */
  documentFrequency(term: string): number {
    let df = this.#overlayLists.get(term)?.size ?? 0;
    const t = this.#base ? this.#base.lookup(term) : -1;
    if (t >= 0) df += this.#liveDocs(t);
    return df;
  }

  #liveDocs(t: number): number {
    const base = this.#base!;
    if (this.#deadCount === 0) return base.termDocs[t]!;
    let count = 0;
    let last = -1;
    const { docs } = base.pairs(t);
    for (let p = 0; p < docs.length; p++) {
      const num = docs[p]!;
      if (num !== last && !this.#dead[num]) count++;
      last = num;
    }
    return count;
  }

  /** The query's weighted terms (the last query's are kept: a search asks for them twice, to rank and to weigh the relevance floor). */
  weighQuery(query: string): WeightedQuery {
    if (this.#weighed?.query !== query) this.#weighed = { query, weighed: weighQuery(this.params, query) };
    return this.#weighed.weighed;
  }

  #weighed: { query: string; weighed: WeightedQuery } | undefined;

  /** Query term → weight (the terms of weighQuery, without the code flag). */
  queryTerms(query: string): Map<string, number> {
    return this.weighQuery(query).weights;
  }

  /** Rank documents for a query: BM25F, OR semantics, ties by ascending id. */
  search(query: string, options: { limit?: number; filter?: (id: string) => boolean } = {}): SearchHit[] {
    const { weights } = this.weighQuery(query);
    const scored = this.#score(weights);
    try {
      // A base document's id is decoded only when the selection asks for it (to filter, or to break a tie), not for every match.
      const top = topKOf(scored.candidates, options.limit ?? 10, scored.score, scored.id, options.filter);
      return top.map((c, i) => ({ id: scored.id(c), score: scored.score(c), rank: i + 1, matched: scored.matched(c) }));
    } finally {
      scored.release();
    }
  }

  /**
   * BM25F scores of every live document matching at least one weighted term (OR semantics). Candidates are base
   * document numbers (≥ 0) and overlay documents (-1 - their index); `release` clears the scores kept per base document.
   */
  #score(query: ReadonlyMap<string, number>): {
    candidates: number[];
    score: (c: number) => number;
    id: (c: number) => string;
    matched: (c: number) => string[];
    release: () => void;
  } {
    const base = this.#base;
    const baseSize = base?.size ?? 0;
    if (this.#scores.length < baseSize) {
      this.#scores = new Float64Array(baseSize);
      this.#factors = new Float64Array(baseSize * SLOTS);
      this.#factorEpoch = new Int32Array(baseSize);
    }
    const n = this.size;
    const avg = this.#baseSums.map((sum, s) => (sum - this.#deadSums[s]! + this.#overlaySums[s]!) / n);
    const k1 = this.params.k1;
    const saturate = (pseudoTf: number, idf: number, qw: number) => (qw * idf * pseudoTf * (k1 + 1)) / (pseudoTf + k1);
    const factor = (length: number, s: number): number => {
      const a = avg[s]!;
      const b = this.#bs[s]!;
      return a > 0 ? this.#weights[s]! / (1 - b + (b * length) / a) : 0;
    };
    const touched: number[] = [];
    const overlayScores = new Map<string, number>();
    const termOf = new Map<string, number>();
    const scores = this.#scores;
    for (const [term, qw] of n === 0 ? [] : query) {
      if (qw <= 0) continue;
      const t = base ? base.lookup(term) : -1;
      termOf.set(term, t);
      const overlayIds = this.#overlayLists.get(term);
      // The idf first (live documents holding the term), so each posting is scored in the one pass that reads it.
      const df = (t >= 0 ? this.#liveDocs(t) : 0) + (overlayIds?.size ?? 0);
      if (df === 0) continue;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      // saturate(pseudoTf, idf, qw) with its operations in the same order: the same scores to the last bit.
      const weight = qw * idf;
      const k1plus = k1 + 1;
      if (t >= 0) {
        const { docs, slotCounts } = base!.pairs(t);
        // The hottest loop of a search (every posting of every query term): fields read once into locals.
        const factors = this.#factors;
        const factorEpoch = this.#factorEpoch;
        const epoch = this.#epoch;
        const dead = this.#dead;
        for (let p = 0, end = docs.length; p < end; ) {
          const num = docs[p]!;
          if (dead[num]) {
            while (p < end && docs[p] === num) p++;
            continue;
          }
          if (factorEpoch[num] !== epoch) this.#refreshFactors(num, factor);
          const row = num * SLOTS;
          let tfSum = 0;
          for (; p < end && docs[p] === num; p++) {
            const packed = slotCounts[p]!;
            tfSum += (packed >>> segmentSlotBits) * factors[row + (packed & segmentSlotMask)]!;
          }
          if (tfSum <= 0) continue;
          if (scores[num] === 0) touched.push(num);
          scores[num]! += (weight * tfSum * k1plus) / (tfSum + k1);
        }
      }
      for (const id of overlayIds ?? []) {
        const doc = this.#overlay.get(id)!;
        const tf = doc.terms.get(term)!;
        let pseudoTf = 0;
        for (let k = 0; k < tf.length; k += 2) pseudoTf += tf[k + 1]! * factor(doc.lengths[tf[k]!] ?? 0, tf[k]!);
        if (pseudoTf <= 0) continue;
        overlayScores.set(id, (overlayScores.get(id) ?? 0) + saturate(pseudoTf, idf, qw));
      }
    }
    const overlayIds = [...overlayScores.keys()];
    const overlayValues = [...overlayScores.values()];
    const candidates = touched.concat(overlayIds.map((_, k) => -1 - k));
    const termIn = (term: string) => {
      let t = termOf.get(term);
      if (t === undefined) termOf.set(term, (t = base ? base.lookup(term) : -1));
      return t;
    };
    return {
      candidates,
      score: (c) => (c >= 0 ? scores[c]! : overlayValues[-1 - c]!),
      id: (c) => (c >= 0 ? base!.id(c) : overlayIds[-1 - c]!),
      matched: (c) => {
        if (c < 0) {
          const doc = this.#overlay.get(overlayIds[-1 - c]!)!;
          return [...query.keys()].filter((term) => doc.terms.has(term));
        }
        return [...query.keys()].filter((term) => {
          const t = termIn(term);
          return t >= 0 && base!.holds(t, c);
        });
      },
      release: () => {
        for (const num of touched) scores[num] = 0;
      },
    };
  }

  #refreshFactors(num: number, factor: (length: number, s: number) => number): void {
    const lengths = this.#base!.lengths;
    for (let s = 0; s < SLOTS; s++) this.#factors[num * SLOTS + s] = factor(lengths[num * SLOTS + s]!, s);
    this.#factorEpoch[num] = this.#epoch;
  }

  /** The overlay and tombstones as JSON, to save beside the base segment. Resets `changed`. */
  delta(): LexicalDelta {
    const dictionary = new Map<string, number>();
    const docs: LexicalDelta["docs"] = [];
    for (const [id, doc] of [...this.#overlay].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
      const flat: number[] = [];
      for (const [term, tf] of doc.terms) {
        let t = dictionary.get(term);
        if (t === undefined) dictionary.set(term, (t = dictionary.size));
        for (let k = 0; k < tf.length; k += 2) flat.push(t, tf[k]!, tf[k + 1]!);
      }
      docs.push([id, doc.hash, [...doc.lengths], flat]);
    }
    const dead: string[] = [];
    for (const [id, num] of this.#baseNums ?? []) if (this.#dead[num]) dead.push(id);
    this.#changed = false;
    return { format: "cairn-lexical-delta", tokenizerVersion: TOKENIZER_VERSION, dead: dead.sort(), terms: [...dictionary.keys()], docs };
  }

  /** A new base segment holding every live document (base survivors in order, then the overlay by id). */
  compact(): Uint8Array {
    const base = this.#base;
    if (!base) {
      const docs: SegmentDoc[] = [...this.#overlay].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([id, d]) => ({ id, hash: d.hash, terms: d.terms, lengths: d.lengths }));
      return buildSegment(this.params, docs);
    }
    return compactLayers(this.params, { base, dead: this.#dead, liveDocs: (t) => this.#liveDocs(t) }, this.#overlay, [...this.#overlayLists.keys()]);
  }
}
