/** Vector arithmetic for the vector store: validation + L2 normalisation, dot products, and top-k selection with an id tie-break. */
import { CairnError } from "../errors.js";

/** One search result: an id and its cosine similarity to the query, in [-1, 1]. */
export type VectorHit = { id: string; similarity: number };

/**
 * Returns an L2-normalised copy of `vector`; throws CairnError("INVALID") when the length is not
 * `dims`, a component is not finite, or the vector is all zeros (cosine is undefined for it).
 */
export function normalised(vector: Float32Array, dims: number, what: string): Float32Array {
  if (vector.length !== dims) {
    throw new CairnError(
      "INVALID",
      `${what}: expected a vector of ${dims} dimensions (the index's), got ${vector.length}; was it made by another embedding model?`,
    );
  }
  let sum = 0;
  for (let i = 0; i < dims; i++) {
    const x = vector[i]!;
    if (!Number.isFinite(x)) {
      throw new CairnError("INVALID", `${what}: expected finite numbers, got ${x} at dimension ${i}`);
    }
    sum += x * x;
  }
  if (sum === 0) {
    throw new CairnError("INVALID", `${what}: expected a non-zero vector, got all zeros (cosine similarity is undefined)`);
  }
  const scale = 1 / Math.sqrt(sum);
  const out = new Float32Array(dims);
  for (let i = 0; i < dims; i++) out[i] = vector[i]! * scale;
  return out;
}

/** Dot product of `query` with the `dims` floats of `slab` starting at `offset` (4 accumulators: ~20% faster in V8). */
export function dotAt(query: Float32Array, slab: Float32Array, offset: number): number {
  let a = 0;
  let b = 0;
  let c = 0;
  let d = 0;
  const dims = query.length;
  let i = 0;
  for (; i + 3 < dims; i += 4) {
    const o = offset + i;
    a += query[i]! * slab[o]!;
    b += query[i + 1]! * slab[o + 1]!;
    c += query[i + 2]! * slab[o + 2]!;
    d += query[i + 3]! * slab[o + 3]!;
  }
  for (; i < dims; i++) a += query[i]! * slab[offset + i]!;
  return a + b + c + d;
}

/** True when the `dims` floats of `slab` at `offset` equal `vector` exactly. */
export function equalAt(vector: Float32Array, slab: Float32Array, offset: number): boolean {
  for (let i = 0; i < vector.length; i++) if (vector[i] !== slab[offset + i]) return false;
  return true;
}

/** Result order: higher similarity first, then ids in ascending code-unit order, so output is deterministic. */
export function compareHits(a: VectorHit, b: VectorHit): number {
  if (a.similarity !== b.similarity) return b.similarity - a.similarity;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Keeps the best `k` hits seen (in `compareHits` order) in a bounded heap whose root is the worst kept hit. */
export class TopK {
  private readonly heap: VectorHit[] = [];
  constructor(private readonly k: number) {}

  /** Offers a hit; it is kept only if it beats the worst kept hit or there is room. */
  push(hit: VectorHit): void {
    if (this.k <= 0) return;
    const heap = this.heap;
    if (heap.length < this.k) {
      heap.push(hit);
      this.siftUp(heap.length - 1);
    } else if (compareHits(hit, heap[0]!) < 0) {
      heap[0] = hit;
      this.siftDown(0);
    }
  }

  /** Would a hit with this similarity be kept? Lets callers skip building hits that cannot enter. */
  admits(similarity: number): boolean {
    return this.heap.length < this.k || similarity >= this.heap[0]!.similarity;
  }

  /** The kept hits, best first. */
  sorted(): VectorHit[] {
    return [...this.heap].sort(compareHits);
  }

  // The root is the *worst* kept hit: a parent compares after (>= 0) its children.
  private siftUp(i: number): void {
    const heap = this.heap;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (compareHits(heap[i]!, heap[parent]!) <= 0) return;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }

  private siftDown(i: number): void {
    const heap = this.heap;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let worst = i;
      if (left < heap.length && compareHits(heap[left]!, heap[worst]!) > 0) worst = left;
      if (right < heap.length && compareHits(heap[right]!, heap[worst]!) > 0) worst = right;
      if (worst === i) return;
      [heap[i], heap[worst]] = [heap[worst]!, heap[i]!];
      i = worst;
    }
  }
}
