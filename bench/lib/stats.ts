/** Summary statistics over timing samples (milliseconds). */

export type Summary = {
  /** Number of samples. */
  n: number;
  min: number;
  /** Median (same as p50). */
  p50: number;
  p95: number;
  max: number;
  mean: number;
};

/** Nearest-rank percentile of `values` (p in 0..100); NaN for no values. */
export function percentile(values: readonly number[], p: number): number {
  if (!values.length) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1]!;
}

export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

export function summarize(values: readonly number[]): Summary {
  const n = values.length;
  return {
    n,
    min: n ? Math.min(...values) : Number.NaN,
    p50: percentile(values, 50),
    p95: percentile(values, 95),
    max: n ? Math.max(...values) : Number.NaN,
    mean: n ? values.reduce((a, b) => a + b, 0) / n : Number.NaN,
  };
}

/** Round to `digits` decimals (for JSON and tables). */
export function round(value: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
