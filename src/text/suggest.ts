/** "Did you mean …?": edit distance and the closest known words to a misspelled one (ids, config keys, frontmatter keys). */

/** Levenshtein distance between two strings (insertions, deletions, substitutions each cost 1). */
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

/**
 * Up to `max` candidates close to `word` (case-insensitive), nearest first, ties by name: within an
 * edit distance of max(2, a third of the word's length), or containing / contained in the word.
 */
export function closest(word: string, candidates: Iterable<string>, max = 3): string[] {
  // Bounded: a hostile 1 MB "id" must not cost a quadratic edit distance.
  const needle = word.toLowerCase().slice(0, 200);
  const limit = Math.max(2, Math.floor(needle.length / 3));
  return [...new Set(candidates)]
    .map((candidate) => ({ candidate, lower: candidate.toLowerCase() }))
    .map(({ candidate, lower }) => ({ candidate, lower, d: editDistance(needle, lower) }))
    .filter(({ lower, d }) => d <= limit || (Math.min(needle.length, lower.length) >= 3 && (lower.includes(needle) || needle.includes(lower))))
    .sort((a, b) => a.d - b.d || a.candidate.localeCompare(b.candidate))
    .slice(0, max)
    .map(({ candidate }) => candidate);
}

/** ` Did you mean "x"?` / ` Did you mean "x" or "y"?`, or "" when nothing is close. */
export function didYouMean(word: string, candidates: Iterable<string>, quote = (s: string) => `"${s}"`): string {
  const near = closest(word, candidates);
  if (!near.length) return "";
  const shown = near.map(quote);
  return ` Did you mean ${shown.length === 1 ? shown[0] : `${shown.slice(0, -1).join(", ")} or ${shown.at(-1)}`}?`;
}
