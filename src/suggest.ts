/** "Did you mean": the closest candidates to a mistyped word (ids, rule ids, config keys). */

/** Levenshtein distance (one row, O(|a|·|b|)); callers compare short words only. */
export function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length]!;
}

/** Up to `max` candidates within a third of the word's length (at least 2 edits), or containing it; closest first. */
export function closest(word: string, candidates: Iterable<string>, max = 3): string[] {
  const needle = word.toLowerCase().slice(0, 200);
  return [...candidates]
    .map((candidate) => ({ candidate, d: editDistance(needle, candidate.toLowerCase()) }))
    .filter(({ candidate, d }) => d <= Math.max(2, Math.floor(needle.length / 3)) || candidate.toLowerCase().includes(needle))
    .sort((a, b) => a.d - b.d || a.candidate.localeCompare(b.candidate))
    .slice(0, max)
    .map(({ candidate }) => candidate);
}
