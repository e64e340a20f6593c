/** Search results for people: a snippet of the finding with the query's terms marked, and a readable relevance. */
import { tokenize } from "../indexing/lexical/index.js";

/** Words as the lexical index sees them (stemmed, identifiers split), without shingles or phrases. */
function terms(text: string): Set<string> {
  return new Set(tokenize(text, { shingles: "none", partBigrams: false, chains: false, operators: false, macros: false, codeRegions: false, stopwords: "all" }));
}

/** The query's terms, and which words share one with it: kept for the last query (a search shows ten snippets of one query, and words repeat). */
let last: { query: string; wanted: Set<string>; words: Map<string, boolean> } | undefined;

function queryTerms(query: string): { wanted: Set<string>; words: Map<string, boolean> } {
  if (last?.query !== query) last = { query, wanted: terms(query), words: new Map() };
  return last;
}

/**
 * The part of `text` (about `width` characters) holding the most query terms, with each matching word
 * passed through `mark`. Words match when they share a term with the query (`cancel` marks `cancellation`).
 */
export function snippet(text: string, query: string, options: { width?: number; mark: (word: string) => string }): string {
  const width = options.width ?? 160;
  const { wanted, words: seen } = queryTerms(query);
  const words = text.replace(/\s+/g, " ").trim().split(" ").filter(Boolean);
  const hit = words.map((word) => {
    const core = word.replace(/^[^\p{L}\p{N}_$]+|[^\p{L}\p{N}_$)]+$/gu, "");
    let matches = seen.get(core);
    if (matches === undefined) seen.set(core, (matches = core !== "" && [...terms(core)].some((t) => wanted.has(t))));
    return matches;
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
 * How many of the query's words (stemmed, stopwords dropped) occur in `text`. The text is read a few
 * kilobytes at a time, whole lines, until every query word is found: an entry may be a megabyte of anchors, and
 * tokenizing all of it took a search that showed it 0.37 s.
 */
export function wordMatch(query: string, text: string): { matched: number; total: number } {
  const wanted = queryTerms(query).wanted;
  const found = new Set<string>();
  for (let start = 0; start < text.length && found.size < wanted.size; ) {
    const newline = text.indexOf("\n", start + WORD_MATCH_CHUNK);
    const end = newline < 0 ? text.length : newline + 1;
    for (const t of terms(text.slice(start, end))) if (wanted.has(t)) found.add(t);
    start = end;
  }
  return { matched: found.size, total: wanted.size };
}

/** Characters of text tokenized at once by `wordMatch` (then up to the end of that line). */
const WORD_MATCH_CHUNK = 4096;

/**
 * A relevance a person can read: how many of the query's words the entry contains — `strong` from
 * 75%, `good` from 40%, else `weak` — and whether its anchors touch a changed file.
 */
export function relevanceLabel(words: { matched: number; total: number }, touchesChangedFile = false): string {
  const touch = touchesChangedFile ? " · anchored in a changed file" : "";
  if (!words.total || !words.matched) return touchesChangedFile ? "anchored in a changed file" : "related in meaning (no query word in it)";
  const share = words.matched / words.total;
  const label = share >= 0.75 ? "strong" : share >= 0.4 ? "good" : "weak";
  return `${label} · ${words.matched} of ${words.total} query word${words.total === 1 ? "" : "s"}${touch}`;
}
