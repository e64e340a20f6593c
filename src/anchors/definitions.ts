/** Where a symbol is *defined* in a file (per-language patterns), with the definition's line range. */
import { blockEnd } from "./blocks.js";
import { blockStyle, languageOf, scanDefinitions, slug, type DefinitionStart, type Language } from "./languages.js";

export { languageOf, type Language } from "./languages.js";

/** A definition's extent, 1-based inclusive lines. */
export type DefinitionRange = { name: string; start: number; end: number; container?: string };

export type FileDefinitions = {
  language: Language;
  /**
   * Definitions of `symbol` (`listen`, `Server.listen`, `Foo::new`, `(*T).M` written `T.M`, a heading); empty when none.
   * A name defined more than MAX_CANDIDATES times keeps the ones nearest line `near` (default: the first ones).
   */
  find(symbol: string, near?: number): DefinitionRange[];
};

const SEPARATORS = /\.|::|#|->/;

/**
 * Definitions of one name whose extent is followed per lookup. Following an extent may read up to
 * MAX_BLOCK_LINES lines, so a generated (or hostile) file defining one name thousands of times would
 * make a lookup quadratic; the nearest ones are what an anchor means anyway.
 */
const MAX_CANDIDATES = 32;

function nearest(list: readonly DefinitionStart[], near: number | undefined): readonly DefinitionStart[] {
  if (list.length <= MAX_CANDIDATES) return list;
  if (near === undefined) return list.slice(0, MAX_CANDIDATES);
  const at = near - 1;
  return [...list]
    .sort((a, b) => Math.abs(a.line - at) - Math.abs(b.line - at) || a.line - b.line)
    .slice(0, MAX_CANDIDATES)
    .sort((a, b) => a.line - b.line);
}

/** Definitions in one file, or undefined when the file's language has no definition patterns. */
export function definitionsOf(file: string, lines: readonly string[]): FileDefinitions | undefined {
  const language = languageOf(file);
  if (!language) return undefined;
  let starts: Map<string, DefinitionStart[]> | undefined;
  const ends = new Map<number, number>();
  const style = blockStyle(language);

  const index = (): Map<string, DefinitionStart[]> => {
    if (starts) return starts;
    starts = new Map();
    for (const d of scanDefinitions(lines, language)) {
      const key = language === "markdown" ? slug(d.name) : d.name;
      const list = starts.get(key);
      if (list) list.push(d);
      else starts.set(key, [d]);
    }
    return starts;
  };
  const range = (d: DefinitionStart): DefinitionRange => {
    let end = ends.get(d.line);
    if (end === undefined) {
      end = blockEnd(lines, d.line, style, { ...(d.level !== undefined ? { level: d.level } : {}), lifetimes: language === "rust" });
      ends.set(d.line, end);
    }
    return { name: d.name, start: d.line + 1, end: end + 1, ...(d.container !== undefined ? { container: d.container } : {}) };
  };

  return {
    language,
    find(symbol, near) {
      if (language === "markdown") return nearest(index().get(slug(symbol)) ?? [], near).map(range);
      const parts = symbol.split(SEPARATORS).filter(Boolean);
      const name = parts[parts.length - 1] ?? symbol;
      const candidates = nearest(index().get(name) ?? [], near).map(range);
      const container = parts.length > 1 ? parts[parts.length - 2]! : undefined;
      if (container === undefined || candidates.length < 2) return candidates;
      const holders = nearest(index().get(container) ?? [], near).map(range);
      const preferred = candidates.filter((c) => c.container === container || holders.some((h) => h.start < c.start && c.start <= h.end));
      return preferred.length ? preferred : candidates;
    },
  };
}
