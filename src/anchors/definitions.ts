/** Where a symbol is *defined* in a file (per-language patterns), with the definition's line range. */
import { blockEnd } from "./blocks.js";
import { blockStyle, languageOf, scanDefinitions, slug, type DefinitionStart, type Language } from "./languages.js";

export { languageOf, type Language } from "./languages.js";

/** A definition's extent, 1-based inclusive lines. */
export type DefinitionRange = { name: string; start: number; end: number; container?: string };

export type FileDefinitions = {
  language: Language;
  /** Definitions of `symbol` (`listen`, `Server.listen`, `Foo::new`, `(*T).M` written `T.M`, a heading); empty when none. */
  find(symbol: string): DefinitionRange[];
};

const SEPARATORS = /\.|::|#|->/;

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
    find(symbol) {
      if (language === "markdown") return (index().get(slug(symbol)) ?? []).map(range);
      const parts = symbol.split(SEPARATORS).filter(Boolean);
      const name = parts[parts.length - 1] ?? symbol;
      const candidates = (index().get(name) ?? []).map(range);
      const container = parts.length > 1 ? parts[parts.length - 2]! : undefined;
      if (container === undefined || candidates.length < 2) return candidates;
      const holders = (index().get(container) ?? []).map(range);
      const preferred = candidates.filter((c) => c.container === container || holders.some((h) => h.start < c.start && c.start <= h.end));
      return preferred.length ? preferred : candidates;
    },
  };
}
