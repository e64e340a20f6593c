/** Bounded top-k selection over scores: best score first, ties broken by ascending id. */

/** True when (idA, a) ranks before (idB, b). */
export function ranksBefore(idA: string, a: number, idB: string, b: number): boolean {
  return a > b || (a === b && idA < idB);
}

/**
 * The `limit` best entries of `scores`, sorted. `filter` is consulted only for candidates that
 * would enter the current top, so an expensive filter runs a few times rather than per match.
 */
export function topK(
  scores: Iterable<[string, number]>,
  limit: number,
  filter?: (id: string) => boolean,
): Array<[string, number]> {
  const top: Array<[string, number]> = [];
  if (limit <= 0) return top;
  for (const entry of scores) {
    const [id, score] = entry;
    const last = top[top.length - 1];
    if (top.length >= limit && last && !ranksBefore(id, score, last[0], last[1])) continue;
    if (filter && !filter(id)) continue;
    // Binary search for the insertion point.
    let lo = 0;
    let hi = top.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const m = top[mid];
      if (m && ranksBefore(m[0], m[1], id, score)) lo = mid + 1;
      else hi = mid;
    }
    top.splice(lo, 0, entry);
    if (top.length > limit) top.pop();
  }
  return top;
}
