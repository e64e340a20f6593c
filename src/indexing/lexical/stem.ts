/**
 * Porter (1980) English stemmer, compact. Only lowercase ASCII words of 3+ letters are stemmed;
 * anything else (identifiers with digits, non-Latin words) is returned unchanged.
 */
import { ownString } from "../../text/own.js";

const isConsonant = (w: string, i: number): boolean => {
  const c = w[i];
  if (c === "a" || c === "e" || c === "i" || c === "o" || c === "u") return false;
  if (c === "y") return i === 0 || !isConsonant(w, i - 1);
  return true;
};

/** m() of Porter: the number of vowel-consonant sequences in `w`. */
function measure(w: string): number {
  let m = 0;
  let i = 0;
  const n = w.length;
  while (i < n && isConsonant(w, i)) i++;
  while (i < n) {
    while (i < n && !isConsonant(w, i)) i++;
    if (i >= n) break;
    m++;
    while (i < n && isConsonant(w, i)) i++;
  }
  return m;
}

const hasVowel = (w: string): boolean => [...w].some((_, i) => !isConsonant(w, i));
const doubleConsonant = (w: string): boolean =>
  w.length >= 2 && w[w.length - 1] === w[w.length - 2] && isConsonant(w, w.length - 1);
/** *o: stem ends consonant-vowel-consonant, the last not w, x or y. */
const cvc = (w: string): boolean => {
  const n = w.length;
  if (n < 3) return false;
  const last = w[n - 1] ?? "";
  return isConsonant(w, n - 3) && !isConsonant(w, n - 2) && isConsonant(w, n - 1) && !"wxy".includes(last);
};

/** Replace the first matching suffix whose stem satisfies `when`; stop at the first suffix that matches. */
function replaceSuffix(
  w: string,
  rules: ReadonlyArray<[string, string]>,
  when: (stem: string, suffix: string) => boolean,
): string {
  for (const [suffix, replacement] of rules) {
    if (w.endsWith(suffix)) {
      const base = w.slice(0, w.length - suffix.length);
      return when(base, suffix) ? base + replacement : w;
    }
  }
  return w;
}

const byLength = (rules: Array<[string, string]>): Array<[string, string]> =>
  rules.sort((a, b) => b[0].length - a[0].length);

// Porter applies the longest matching suffix only, hence the tables sorted by length.
const STEP2 = byLength([
  ["ational", "ate"], ["tional", "tion"], ["enci", "ence"], ["anci", "ance"], ["izer", "ize"],
  ["bli", "ble"], ["alli", "al"], ["entli", "ent"], ["eli", "e"], ["ousli", "ous"],
  ["ization", "ize"], ["ation", "ate"], ["ator", "ate"], ["alism", "al"], ["iveness", "ive"],
  ["fulness", "ful"], ["ousness", "ous"], ["aliti", "al"], ["iviti", "ive"], ["biliti", "ble"],
  ["logi", "log"],
]);
const STEP3 = byLength([
  ["icate", "ic"], ["ative", ""], ["alize", "al"], ["iciti", "ic"], ["ical", "ic"], ["ful", ""], ["ness", ""],
]);
const STEP4 = byLength(
  [
    "al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ion", "ou",
    "ism", "ate", "iti", "ous", "ive", "ize",
  ].map((s): [string, string] => [s, ""]),
);

function step1(w: string): string {
  if (w.endsWith("sses")) w = w.slice(0, -2);
  else if (w.endsWith("ies")) w = w.slice(0, -2);
  else if (w.endsWith("s") && !w.endsWith("ss")) w = w.slice(0, -1);

  if (w.endsWith("eed")) {
    if (measure(w.slice(0, -3)) > 0) w = w.slice(0, -1);
  } else {
    const suffix = w.endsWith("ed") ? "ed" : w.endsWith("ing") ? "ing" : "";
    const base = w.slice(0, w.length - suffix.length);
    if (suffix !== "" && hasVowel(base)) {
      w = base;
      if (w.endsWith("at") || w.endsWith("bl") || w.endsWith("iz")) w += "e";
      else if (doubleConsonant(w) && !/[lsz]$/.test(w)) w = w.slice(0, -1);
      else if (measure(w) === 1 && cvc(w)) w += "e";
    }
  }
  if (w.endsWith("y") && hasVowel(w.slice(0, -1))) w = `${w.slice(0, -1)}i`;
  return w;
}

function step5(w: string): string {
  if (w.endsWith("e")) {
    const base = w.slice(0, -1);
    const m = measure(base);
    if (m > 1 || (m === 1 && !cvc(base))) w = base;
  }
  if (measure(w) > 1 && doubleConsonant(w) && w.endsWith("l")) w = w.slice(0, -1);
  return w;
}

const cache = new Map<string, string>();

/** Stem one lowercase word. Results are memoised (vocabularies are small). */
export function stem(word: string): string {
  if (word.length < 3 || !/^[a-z]+$/.test(word)) return word;
  const hit = cache.get(word);
  if (hit !== undefined) return hit;
  let w = step1(word);
  w = replaceSuffix(w, STEP2, (s) => measure(s) > 0);
  w = replaceSuffix(w, STEP3, (s) => measure(s) > 0);
  w = replaceSuffix(w, STEP4, (s, suffix) => measure(s) > 1 && (suffix !== "ion" || /[st]$/.test(s)));
  w = step5(w);
  if (cache.size > 50_000) cache.clear();
  // The memo keeps strings of its own: a word lexed from an entry or a query would otherwise hold that whole text.
  w = ownString(w);
  cache.set(ownString(word), w);
  return w;
}
