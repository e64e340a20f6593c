/**
 * Inverted index storage: documents get small integer numbers, each term a posting list of
 * (number, slot frequencies). Scoring accumulates into a reusable typed array and caches each
 * document's per-slot length normalisation until the collection statistics change.
 */
import type { DocTerms, FieldTf } from "./lexical-index.js";

type PostingList = { nums: number[]; tfs: FieldTf[] };

/** Combine a document's pseudo term frequency, the term's idf and its query weight into a score. */
export type Saturate = (pseudoTf: number, idf: number, queryWeight: number) => number;

export class Postings {
  readonly #slots: number;
  readonly #nums = new Map<string, number>();
  readonly #ids: Array<string | undefined> = [];
  readonly #docs: Array<DocTerms | undefined> = [];
  readonly #free: number[] = [];
  readonly #lists = new Map<string, PostingList>();
  readonly #lengthSums: number[];
  /** Bumped on every change of the collection, which invalidates cached normalisations. */
  #epoch = 1;
  #factorEpoch = new Int32Array(0);
  #factors = new Float64Array(0);
  #scores = new Float64Array(0);

  constructor(slots: number) {
    this.#slots = slots;
    this.#lengthSums = new Array<number>(slots).fill(0);
  }

  get size(): number {
    return this.#nums.size;
  }

  has(id: string): boolean {
    return this.#nums.has(id);
  }

  ids(): string[] {
    return [...this.#nums.keys()];
  }

  doc(id: string): DocTerms | undefined {
    const num = this.#nums.get(id);
    return num === undefined ? undefined : this.#docs[num];
  }

  df(term: string): number {
    return this.#lists.get(term)?.nums.length ?? 0;
  }

  /** Documents sorted by id, for a stable snapshot. */
  entries(): Array<[string, DocTerms]> {
    const out: Array<[string, DocTerms]> = [];
    for (const [id, num] of this.#nums) {
      const doc = this.#docs[num];
      if (doc) out.push([id, doc]);
    }
    return out.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  }

  add(id: string, doc: DocTerms): void {
    this.remove(id);
    const num = this.#free.pop() ?? this.#ids.length;
    this.#nums.set(id, num);
    this.#ids[num] = id;
    this.#docs[num] = doc;
    doc.lengths.forEach((len, s) => {
      this.#lengthSums[s] = (this.#lengthSums[s] ?? 0) + len;
    });
    for (const [term, tf] of doc.terms) {
      let list = this.#lists.get(term);
      if (!list) {
        list = { nums: [], tfs: [] };
        this.#lists.set(term, list);
      }
      list.nums.push(num);
      list.tfs.push(tf);
    }
    this.#epoch++;
  }

  remove(id: string): void {
    const num = this.#nums.get(id);
    if (num === undefined) return;
    const doc = this.#docs[num];
    this.#nums.delete(id);
    this.#ids[num] = undefined;
    this.#docs[num] = undefined;
    this.#free.push(num);
    if (!doc) return;
    doc.lengths.forEach((len, s) => {
      this.#lengthSums[s] = (this.#lengthSums[s] ?? 0) - len;
    });
    for (const term of doc.terms.keys()) {
      const list = this.#lists.get(term);
      if (!list) continue;
      const at = list.nums.indexOf(num);
      if (at < 0) continue;
      // Swap-remove: posting order never affects scores (they accumulate per document).
      const last = list.nums.length - 1;
      list.nums[at] = list.nums[last] ?? num;
      list.tfs[at] = list.tfs[last] ?? [];
      list.nums.pop();
      list.tfs.pop();
      if (list.nums.length === 0) this.#lists.delete(term);
    }
    this.#epoch++;
  }

  #ensureCapacity(): void {
    const n = this.#ids.length;
    if (this.#scores.length >= n) return;
    const capacity = Math.max(16, n * 2);
    this.#scores = new Float64Array(capacity);
    const epochs = new Int32Array(capacity);
    epochs.set(this.#factorEpoch);
    this.#factorEpoch = epochs;
    const factors = new Float64Array(capacity * this.#slots);
    factors.set(this.#factors);
    this.#factors = factors;
  }

  /** weight / (1 - b + b * length / average length) of every slot of one document. */
  #refreshFactors(num: number, weights: readonly number[], bs: readonly number[]): void {
    const lengths = this.#docs[num]?.lengths ?? [];
    const n = this.#nums.size;
    const base = num * this.#slots;
    for (let s = 0; s < this.#slots; s++) {
      const avg = (this.#lengthSums[s] ?? 0) / n;
      const b = bs[s] ?? 0;
      this.#factors[base + s] = avg > 0 ? (weights[s] ?? 0) / (1 - b + (b * (lengths[s] ?? 0)) / avg) : 0;
    }
    this.#factorEpoch[num] = this.#epoch;
  }

  /**
   * Score every document that holds at least one weighted term. `weights` and `bs` are the
   * per-slot field weight and length normalisation (constant for one index).
   */
  accumulate(
    query: ReadonlyMap<string, number>,
    weights: readonly number[],
    bs: readonly number[],
    saturate: Saturate,
  ): Array<[string, number]> {
    const n = this.#nums.size;
    if (n === 0) return [];
    this.#ensureCapacity();
    const scores = this.#scores;
    const factors = this.#factors;
    const slots = this.#slots;
    const touched: number[] = [];
    for (const [term, qw] of query) {
      const list = this.#lists.get(term);
      if (!list || qw <= 0) continue;
      const df = list.nums.length;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      for (let i = 0; i < df; i++) {
        const num = list.nums[i] ?? 0;
        const tf = list.tfs[i] ?? [];
        if (this.#factorEpoch[num] !== this.#epoch) this.#refreshFactors(num, weights, bs);
        let pseudoTf = 0;
        for (let k = 0; k < tf.length; k += 2) pseudoTf += (tf[k + 1] ?? 0) * (factors[num * slots + (tf[k] ?? 0)] ?? 0);
        if (pseudoTf <= 0) continue;
        if (scores[num] === 0) touched.push(num);
        scores[num] = (scores[num] ?? 0) + saturate(pseudoTf, idf, qw);
      }
    }
    const out: Array<[string, number]> = [];
    for (const num of touched) {
      out.push([this.#ids[num] ?? "", scores[num] ?? 0]);
      scores[num] = 0;
    }
    return out;
  }
}
