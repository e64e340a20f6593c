/** Bounded top-k selection over scores: best score first, ties broken by ascending id. */

/**
 * The `limit` best entries of `scores`, sorted. `filter` is consulted only for candidates that
 * would enter the current top, so an expensive filter runs a few times rather than per match.
 */
export function topK(
  scores: Iterable<[string, number]>,
  limit: number,
  filter?: (id: string) => boolean,
): Array<[string, number]> {
  return topKOf(
    scores,
    limit,
    (entry) => entry[1],
    (entry) => entry[0],
    filter,
  );
}

/**
 * The same selection over candidates of any kind: `scoreOf` and `idOf` read a candidate, and `idOf` is asked
 * only when a candidate is filtered or ties with another (an id that is costly to decode is decoded a few times).
 */
export function topKOf<T>(candidates: Iterable<T>, limit: number, scoreOf: (c: T) => number, idOf: (c: T) => string, filter?: (id: string) => boolean): T[] {
  const top: T[] = [];
  if (limit <= 0) return top;
  const before = (a: T, sa: number, b: T, sb: number) => sa > sb || (sa === sb && idOf(a) < idOf(b));
  for (const candidate of candidates) {
    const score = scoreOf(candidate);
    const last = top[top.length - 1];
    if (top.length >= limit && last !== undefined && !before(candidate, score, last, scoreOf(last))) continue;
    if (filter && !filter(idOf(candidate))) continue;
    // Binary search for the insertion point.
    let lo = 0;
    let hi = top.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const m = top[mid]!;
      if (before(m, scoreOf(m), candidate, score)) lo = mid + 1;
      else hi = mid;
    }
    top.splice(lo, 0, candidate);
    if (top.length > limit) top.pop();
  }
  return top;
}
