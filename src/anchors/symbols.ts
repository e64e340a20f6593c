/**
 * A symbol anchor against its file: resolved to its *definition* (per-language patterns), with the
 * definition's new place when it left the cited lines. Files in languages without patterns fall
 * back to "the word occurs in the file".
 */
import type { Anchor } from "../entry/types.js";
import type { AnchorFingerprint } from "../ledger/events.js";
import { languageOf } from "./definitions.js";
import type { RepoFiles } from "./repo-files.js";
import type { AnchorProblem, LineRange } from "./types.js";

export type SymbolResult = { definition?: LineRange; range?: LineRange; problems: AnchorProblem[] };

/** Files read, per locator, looking for a symbol defined in another file than the one cited. */
const ELSEWHERE_BUDGET = 3000;

export type Elsewhere = (symbol: string, language: string, except: string) => Promise<{ file: string; range: LineRange } | undefined>;

/** Look for the definition in other files of the same language, within a read budget. */
export function elsewhereFinder(files: RepoFiles): Elsewhere {
  let budget = ELSEWHERE_BUDGET;
  const cache = new Map<string, Promise<{ file: string; range: LineRange } | undefined>>();
  return (symbol, language, except) => {
    const key = `${language}\0${symbol}`;
    let found = cache.get(key);
    if (!found) {
      found = (async () => {
        const word = lastSegment(symbol);
        for (const file of await files.listing()) {
          if (file === except || languageOf(file) !== language) continue;
          if (budget-- <= 0) return undefined;
          if (!(await files.hasWord(file, word))) continue;
          const def = (await files.definitions(file))?.find(symbol)[0];
          if (def) return { file, range: { start: def.start, end: def.end } };
        }
        return undefined;
      })();
      cache.set(key, found);
    }
    return found;
  };
}

/** Resolve `anchor.symbol` in one file; `cited` is the anchor's line range, if any. */
export async function resolveSymbol(files: RepoFiles, file: string, anchor: Anchor & { symbol: string }, cited: LineRange | undefined, print: AnchorFingerprint | undefined, elsewhere: Elsewhere): Promise<SymbolResult> {
  const symbol = anchor.symbol;
  const defs = await files.definitions(file);
  const word = lastSegment(symbol);
  if (!defs) {
    if (await files.hasWord(file, word)) return { problems: [] };
    const searched = word === symbol ? "" : ` (searched for \`${symbol}\` and the word \`${word}\`)`;
    return { problems: [unresolved(`the symbol \`${symbol}\` does not occur in ${file}${searched}; expected the symbol named in the anchor to appear in the file`, `\`${symbol}\` is not in ${file}`)] };
  }
  const found = defs.find(symbol, cited?.start);
  if (!found.length) {
    const other = await elsewhere(symbol, defs.language, file);
    const there = other ? `; it is defined in ${other.file}:${other.range.start}-${other.range.end}` : "";
    if (defs.language !== "markdown" && (await files.hasWord(file, word))) {
      return {
        problems: [
          {
            rule: "anchor-not-definition",
            severity: "warning",
            message: `\`${symbol}\` is used in ${file} but not defined there${there || " (no definition found)"}; expected the anchor to name the file that defines it`,
            short: other ? `\`${symbol}\` is now defined in ${other.file}:${other.range.start}-${other.range.end}` : `\`${symbol}\` is not defined in ${file}`,
          },
        ],
      };
    }
    const what = defs.language === "markdown" ? `no heading \`${symbol}\` in ${file}` : `the symbol \`${symbol}\` does not occur in ${file}`;
    return { problems: [unresolved(`${what}${there}; expected the symbol named in the anchor to be defined in the file`, other ? `\`${symbol}\` moved to ${other.file}` : `\`${symbol}\` is not in ${file}`)] };
  }
  if (!cited) return { definition: span(found[0]!), problems: [] };
  const overlapping = found.find((d) => d.start <= cited.end && d.end >= cited.start);
  if (overlapping) return { definition: span(overlapping), range: cited, problems: [] };
  const nearest = [...found].sort((a, b) => Math.abs(a.start - cited.start) - Math.abs(b.start - cited.start))[0]!;
  const definition = span(nearest);
  let to = definition;
  if (print?.symbol === symbol) {
    // The print recorded where the definition started at confirmation: shift the cited lines with it.
    const shift = definition.start - print.start;
    const shifted = { start: cited.start + shift, end: cited.end + shift };
    if (shifted.start >= definition.start && shifted.end <= definition.end) to = shifted;
  }
  return {
    definition,
    range: to,
    problems: [
      {
        rule: "anchor-moved",
        severity: "warning",
        message: `the cited lines ${cited.start}-${cited.end} no longer hold \`${symbol}\`; its definition is at lines ${definition.start}-${definition.end} of ${file}, so the cited lines moved to ${to.start}-${to.end}; run \`cairn check --fix\` to update the anchor`,
        short: `the cited lines moved to ${to.start}-${to.end}`,
        fix: { range: to },
      },
    ],
  };
}

export function lastSegment(symbol: string): string {
  return symbol.split(/\.|::|#|->/).pop() || symbol;
}

function span(d: LineRange): LineRange {
  return { start: d.start, end: d.end };
}

function unresolved(message: string, short: string): AnchorProblem {
  return { rule: "anchor-unresolved", severity: "error", message, short };
}
