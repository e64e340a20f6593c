/** "Did you mean": the few candidates closest to a mistyped id, run or agent name. */

/** Up to 3 of `candidates` within a small edit distance of `needle` (case-insensitive) or containing it, closest first. */
export function suggest(needle: string, candidates: Iterable<string>): string[] {
  const want = needle.toLowerCase();
  return [...new Set(candidates)]
    .map((candidate) => ({ candidate, d: editDistance(want, candidate.toLowerCase()) }))
    .filter(({ candidate, d }) => d <= Math.max(2, Math.floor(needle.length / 3)) || (want.length > 0 && candidate.toLowerCase().includes(want)))
    .sort((a, b) => a.d - b.d || a.candidate.localeCompare(b.candidate))
    .slice(0, 3)
    .map(({ candidate }) => candidate);
}

function editDistance(a: string, b: string): number {
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
