/** L2 normalisation of embedding vectors. */

/**
 * Scale `vector` in place to unit length and return it. A zero or non-finite vector cannot be
 * normalised: it throws, because storing it would poison cosine search.
 */
export function l2Normalize(vector: Float32Array, what = "embedding"): Float32Array {
  let sum = 0;
  for (const x of vector) sum += x * x;
  const norm = Math.sqrt(sum);
  if (!Number.isFinite(norm) || norm === 0) {
    throw new Error(`${what} has norm ${norm} (expected a finite, non-zero vector of ${vector.length} numbers)`);
  }
  for (let i = 0; i < vector.length; i++) vector[i] = vector[i]! / norm;
  return vector;
}
