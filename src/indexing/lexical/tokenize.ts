/**
 * Code-aware tokenizer shared by indexing and querying. Text is split into prose and code
 * regions; both yield lowercased, stemmed words and identifiers (whole and split into parts);
 * code regions add operator tokens, member/path chains, macro names and adjacent-lexeme
 * shingles (`a b`), prose drops English stopwords.
 */
import { lex, pathWords, splitIdentifier, type Lexeme } from "./lexer.js";
import { splitRegions } from "./regions.js";
import { stem } from "./stem.js";
import { STOPWORDS } from "./stopwords.js";

export type TokenizerOptions = {
  /** Tell code from prose (markdown fences, backticks, code-like lines); false treats all text as code. Default true. */
  codeRegions: boolean;
  /** Emit the parts of compound identifiers (`sortBy` → `sort`, `by`) besides the whole. Default true. */
  splitIdentifiers: boolean;
  /** Emit adjacent-segment bigrams of identifiers with 3+ segments (`unnecessary_sort_by` → `sort_by`). Default true. */
  partBigrams: boolean;
  /** Emit operator tokens in code such as `==`, `&&`, `->`, `?`, `&mut`. Default true. */
  operators: boolean;
  /** Emit `a.b` for member and path chains in code (`x.iter().count()` → `iter.count`). Default true. */
  chains: boolean;
  /** Emit `name!` for macro calls in code (`vec![...]`). Default true. */
  macros: boolean;
  /** Emit `a b` shingles of adjacent code lexemes; "all" adds `a~b` word bigrams in prose. Default "all". */
  shingles: "none" | "code" | "all";
  /** Where English stopwords are dropped. Default "prose". */
  stopwords: "none" | "prose" | "all";
  /** Stem words and identifier parts with the Porter stemmer. Default true. */
  stem: boolean;
};

export const DEFAULT_TOKENIZER_OPTIONS: Readonly<TokenizerOptions> = {
  codeRegions: true,
  splitIdentifiers: true,
  partBigrams: true,
  operators: true,
  chains: true,
  macros: true,
  shingles: "all",
  stopwords: "prose",
  stem: true,
};

/** Bumped whenever the produced terms change, so persisted indexes are rebuilt. */
export const TOKENIZER_VERSION = 2;

/** Operators kept as terms; `<`, `>`, `*`, `&`, `|` are too ambiguous on their own (generics, refs, closures). */
const INDEXED_OPERATORS: ReadonlySet<string> = new Set([
  "..=", "::", "->", "=>", "==", "!=", "<=", ">=", "&&", "||", "..", "+=", "-=", "*=", "/=",
  "%=", "<<", ">>", "#[", "#![", "?", "!",
]);
const CHAIN_SEPARATORS: ReadonlySet<string> = new Set([".", "::", "->"]);

const isSingleLetter = (term: string): boolean => term.length === 1 && !/\p{N}/u.test(term);

/** A code shingle: two lexeme heads joined by a space, which no other term contains. */
export const isShingle = (term: string): boolean => term.includes(" ");
/** A prose phrase: two adjacent non-stopwords joined by `~`, e.g. `boundari~layer`. */
export const isPhrase = (term: string): boolean => !term.includes(" ") && term.length > 2 && term.includes("~");

type WordContext = {
  o: TokenizerOptions;
  keep: (w: string) => boolean;
  norm: (w: string) => string;
  terms: string[];
};

/**
 * Push the terms of one word or identifier: the whole (stemmed when it is a single part), its
 * parts and segment bigrams. Returns the head term and whether the whole was kept (not a
 * stopword); undefined when the word has no letters or digits at all (`__`).
 */
function wordTerms(word: string, c: WordContext): { head: string; kept: boolean } | undefined {
  const { whole, segments, parts } = splitIdentifier(word);
  if (whole === "") return undefined;
  const compound = parts.length > 1;
  const head = compound ? whole : c.norm(whole);
  const kept = c.keep(whole);
  if (kept) c.terms.push(head);
  if (compound && c.o.splitIdentifiers) {
    for (const p of parts) if (c.keep(p)) c.terms.push(c.norm(p));
    if (c.o.partBigrams && segments.length > 2) {
      for (let j = 0; j + 1 < segments.length; j++) c.terms.push(`${segments[j]}_${segments[j + 1]}`);
    }
  }
  return { head, kept };
}

/** A path yields itself (lowercased, without `./`), its file name, and the terms of its words. */
function pathTerms(path: string, c: WordContext): string {
  const whole = path.toLowerCase().replace(/^\.{1,2}\//, "");
  c.terms.push(whole);
  const base = whole.slice(whole.lastIndexOf("/") + 1);
  if (base !== "" && base !== whole) c.terms.push(base);
  for (const word of pathWords(path)) wordTerms(word, c);
  return whole;
}

function tokenizeRegion(text: string, code: boolean, o: TokenizerOptions, terms: string[]): void {
  const lexemes = lex(text, code);
  const stop = o.stopwords === "all" || (o.stopwords === "prose" && !code);
  const c: WordContext = {
    o,
    keep: (w) => w !== "" && !(stop && STOPWORDS.has(w)) && !isSingleLetter(w),
    norm: (w) => (o.stem ? stem(w) : w),
    terms,
  };
  // The head of each lexeme: the term that represents it in chains and shingles.
  const heads: Array<string | undefined> = lexemes.map(() => undefined);
  // Consecutive kept prose words, for `a~b` phrases.
  const phrase: string[] = [];

  lexemes.forEach((lx, i) => {
    const next: Lexeme | undefined = lexemes[i + 1];
    const adjacent = next !== undefined && next.start === lx.end;
    if (lx.kind === "number") {
      terms.push(lx.text);
      heads[i] = lx.text;
      phrase.length = 0;
    } else if (lx.kind === "path") {
      heads[i] = pathTerms(lx.text, c);
      phrase.length = 0;
    } else if (lx.kind === "word") {
      const word = wordTerms(lx.text, c);
      if (!word) return;
      heads[i] = word.head;
      if (word.kept) phrase.push(word.head);
      else phrase.length = 0;
      const after = text[lx.end + 1] ?? "";
      if (code && o.macros && adjacent && next.text === "!" && after !== "" && "([{".includes(after)) {
        terms.push(`${word.head}!`);
      }
      if (!code && o.shingles === "all" && word.kept && phrase.length >= 2) {
        terms.push(`${phrase[phrase.length - 2]}~${phrase[phrase.length - 1]}`);
      }
    } else {
      phrase.length = 0;
      heads[i] = lx.text;
      if (code && o.operators) {
        if (lx.text === "&" && adjacent && next.text === "mut") terms.push("&mut");
        else if (INDEXED_OPERATORS.has(lx.text)) terms.push(lx.text);
      }
    }
  });
  if (!code) return;

  for (let i = 0; i < lexemes.length; i++) {
    const a = heads[i];
    if (o.chains && a !== undefined && lexemes[i]?.kind === "word") {
      // `a.b`, `a::b`, `a->b` and `a().b` link a word to the next word across one separator.
      let j = i + 1;
      if (lexemes[j]?.text === "(" && lexemes[j + 1]?.text === ")") j += 2;
      const sep = lexemes[j];
      const b = heads[j + 1];
      if (sep && CHAIN_SEPARATORS.has(sep.text) && b !== undefined && lexemes[j + 1]?.kind === "word") {
        terms.push(`${a}.${b}`);
      }
    }
    const b = heads[i + 1];
    if (o.shingles !== "none" && a !== undefined && b !== undefined) {
      terms.push(`${a} ${b}`);
    }
  }
}

/** Terms of one region of the text; `code` tells which kind of region produced them. */
export type RegionTerms = { code: boolean; terms: string[] };

/** Tokenize region by region, so callers can treat terms from code and prose differently. */
export function tokenizeRegions(text: string, options: Partial<TokenizerOptions> = {}): RegionTerms[] {
  const o: TokenizerOptions = { ...DEFAULT_TOKENIZER_OPTIONS, ...options };
  const normal = text.normalize("NFKC");
  const regions = o.codeRegions ? splitRegions(normal) : [{ text: normal, code: true }];
  return regions.map((region) => {
    const terms: string[] = [];
    tokenizeRegion(region.text, region.code, o, terms);
    return { code: region.code, terms };
  });
}

/** Tokenize text into index terms; queries and documents go through this same pipeline. */
export function tokenize(text: string, options: Partial<TokenizerOptions> = {}): string[] {
  return tokenizeRegions(text, options).flatMap((r) => r.terms);
}
