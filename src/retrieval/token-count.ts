/**
 * BPE on one very long run without spaces (`aaaa…`) is quadratic in the run's length, and an entry
 * may hold up to 1 MB; runs longer than MAX_RUN characters are therefore counted in slices of
 * MAX_RUN. Text without such runs is counted exactly; with them, the count can only be a little
 * higher than the exact one (at most one token per slice), which is the safe side of a budget.
 */

/** Longest run of non-space characters counted in one piece. */
const MAX_RUN = 256;
const LONG_RUN = new RegExp(String.raw`\S{${MAX_RUN + 1},}`, "g");

export function countBounded(text: string, count: (text: string) => number): number {
  let total = 0;
  let cursor = 0;
  LONG_RUN.lastIndex = 0;
  for (let m = LONG_RUN.exec(text); m; m = LONG_RUN.exec(text)) {
    if (m.index > cursor) total += count(text.slice(cursor, m.index));
    for (let i = 0; i < m[0].length; i += MAX_RUN) total += count(m[0].slice(i, i + MAX_RUN));
    cursor = m.index + m[0].length;
  }
  return total + (cursor < text.length ? count(text.slice(cursor)) : 0);
}
