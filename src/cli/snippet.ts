/** Search results for people: a snippet of the finding with the query's terms marked, and a readable relevance. */
import { tokenize } from "../indexing/lexical/index.js";

/** Words as the lexical index sees them (stemmed, identifiers split), without shingles or phrases. */
function terms(text: string): Set<string> {
  return new Set(tokenize(text, { shingles: "none", partBigrams: false, chains: false, operators: false, macros: false, codeRegions: false }));
}

/**
 * The part of `text` (about `width` characters) holding the most query terms, with each matching word
 * passed through `mark`. Words match when they share a term with the query (`cancel` marks `cancellation`).
 */
export function snippet(text: string, query: string, options: { width?: number; mark: (word: string) => string }): string {
  const width = options.width ?? 160;
  const wanted = terms(query);
  const words = text.replace(/\s+/g, " ").trim().split(" ").filter(Boolean);
  const hit = words.map((word) => {
    const core = word.replace(/^[^\p{L}\p{N}_$]+|[^\p{L}\p{N}_$)]+$/gu, "");
    return core !== "" && [...terms(core)].some((t) => wanted.has(t));
  });
  // The window of whole words within `width` characters that holds the most hits (earliest on ties).
  let best = { start: 0, end: 0, hits: -1 };
  for (let start = 0; start < words.length; start++) {
    let end = start;
    let length = 0;
    let hits = 0;
    while (end < words.length && (end === start || length + 1 + words[end]!.length <= width)) {
      length += (end === start ? 0 : 1) + words[end]!.length;
      if (hit[end]) hits++;
      end++;
    }
    if (hits > best.hits) best = { start, end, hits };
    if (end === words.length) break;
  }
  const shown = words.slice(best.start, best.end).map((word, i) => (hit[best.start + i] ? markWord(word, options.mark) : word));
  return `${best.start > 0 ? "… " : ""}${shown.join(" ")}${best.end < words.length ? " …" : ""}`;
}

/** Mark the word itself, leaving surrounding punctuation outside the mark. */
function markWord(word: string, mark: (word: string) => string): string {
  const m = /^([^\p{L}\p{N}_$]*)(.*?)([^\p{L}\p{N}_$)]*)$/u.exec(word);
  return m && m[2] ? `${m[1]}${mark(m[2])}${m[3]}` : mark(word);
}

/**
 * A relevance a person can read, from the share of the query's weight an entry matches (rare words weigh
 * more): `strong` ≥ 60%, `good` ≥ 35%, else `weak`; entries found only through changed files say so.
 */
export function relevanceLabel(explain: { lexical?: { matched: number }; changedFiles?: { touch: number } }): string {
  const matched = explain.lexical?.matched;
  if (matched === undefined) return explain.changedFiles ? "anchored in a changed file" : "semantic match";
  const percent = Math.round(matched * 100);
  const label = matched >= 0.6 ? "strong" : matched >= 0.35 ? "good" : "weak";
  return `${label} · ${percent}% of the query${explain.changedFiles ? " · touches a changed file" : ""}`;
}
