/**
 * Code-aware tokenizer shared by indexing and querying. Text is split into prose and code
 * regions; both yield lowercased, stemmed words and identifiers (whole and split into parts);
 * code regions add operator tokens, member/path chains, macro names and adjacent-lexeme
 * shingles (`a b`), prose drops English stopwords.
 */
import { lex, splitIdentifier, type Lexeme } from "./lexer.js";
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
export const TOKENIZER_VERSION = 1;

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

function tokenizeRegion(text: string, code: boolean, o: TokenizerOptions, terms: string[]): void {
  const lexemes = lex(text);
  const stop = o.stopwords === "all" || (o.stopwords === "prose" && !code);
  const keep = (w: string): boolean => w !== "" && !(stop && STOPWORDS.has(w)) && !isSingleLetter(w);
  const norm = (w: string): string => (o.stem ? stem(w) : w);
  // The head of each lexeme: the term that represents it in chains and shingles.
  const heads: Array<string | undefined> = lexemes.map(() => undefined);
  const phrase: string[] = [];

  lexemes.forEach((lx, i) => {
    const next: Lexeme | undefined = lexemes[i + 1];
    const adjacent = next !== undefined && next.start === lx.end;
    if (lx.kind === "number") {
      terms.push(lx.text);
      heads[i] = lx.text;
    } else if (lx.kind === "word") {
      const { whole, segments, parts } = splitIdentifier(lx.text);
      if (whole === "") return;
      const compound = parts.length > 1;
      const head = compound ? whole : norm(whole);
      heads[i] = head;
      if (keep(whole)) {
        terms.push(head);
        phrase.push(head);
      } else phrase.length = 0;
      if (compound && o.splitIdentifiers) {
        for (const p of parts) if (keep(p)) terms.push(norm(p));
        if (o.partBigrams && segments.length > 2) {
          for (let j = 0; j + 1 < segments.length; j++) terms.push(`${segments[j]}_${segments[j + 1]}`);
        }
      }
      const after = text[lx.end + 1] ?? "";
      if (code && o.macros && adjacent && next.text === "!" && "([{".includes(after) && after !== "") {
        terms.push(`${whole}!`);
      }
      if (!code && o.shingles === "all" && phrase.length >= 2) {
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
      const c = heads[i + 2];
      if (process.env["TRI"] && c !== undefined) terms.push(`${a} ${b} ${c}`);
    }
  }
}

/** Tokenize text into index terms; queries and documents go through this same pipeline. */
export function tokenize(text: string, options: Partial<TokenizerOptions> = {}): string[] {
  const o: TokenizerOptions = { ...DEFAULT_TOKENIZER_OPTIONS, ...options };
  const normal = text.normalize("NFKC");
  const terms: string[] = [];
  const regions = o.codeRegions ? splitRegions(normal) : [{ text: normal, code: true }];
  for (const region of regions) tokenizeRegion(region.text, region.code, o, terms);
  return terms;
}

export function tokenizeRegions(text: string, options: Partial<TokenizerOptions> = {}): Array<{ code: boolean; terms: string[] }> {
  const o: TokenizerOptions = { ...DEFAULT_TOKENIZER_OPTIONS, ...options };
  const normal = text.normalize("NFKC");
  const regions = o.codeRegions ? splitRegions(normal) : [{ text: normal, code: true }];
  return regions.map((r) => {
    const terms: string[] = [];
    tokenizeRegion(r.text, r.code, o, terms);
    return { code: r.code, terms };
  });
}
