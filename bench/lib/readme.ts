/**
 * README tables come from the last benchmark run, never from hand edits. A README section
 *
 *   <!-- bench:NAME -->            the goal table of bench/results/NAME.json (`goals`)
 *   <!-- bench:NAME:TABLE -->      the table `tables.TABLE` of that file (markdown text, or an array of records)
 *   ...generated...
 *   <!-- /bench -->
 *
 * is replaced by `renderReadme`; `npm run bench` rewrites the README after each run and
 * `npm run readme` does it from the results already on disk. A test checks the README is current.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { goalTable, table, type GoalRow } from "./report.js";

const SECTION = /<!-- bench:([\w.-]+)(?::([\w.-]+))? -->\n[\s\S]*?<!-- \/bench -->/g;

type Results = { goals?: GoalRow[]; tables?: Record<string, unknown>; machine?: { date?: string; loadavg?: number[] } };

/** Markdown for one marker, or a visible note when the results are missing. */
export function renderSection(results: Results | undefined, name: string, tableName?: string): string {
  if (!results) return `_(no results yet: run \`npm run bench -- ${name}\`)_`;
  if (!tableName) return results.goals?.length ? goalTable(results.goals) : `_(bench/results/${name}.json has no goal rows)_`;
  const value = results.tables?.[tableName];
  if (typeof value === "string") return value.trim();
  if (Array.isArray(value)) return table(value as Array<Record<string, unknown>>);
  return `_(bench/results/${name}.json has no table "${tableName}")_`;
}

/** The README text with every bench section regenerated from `resultsDir`. */
export async function renderReadme(readme: string, resultsDir: string): Promise<string> {
  const cache = new Map<string, Results | undefined>();
  const load = async (name: string): Promise<Results | undefined> => {
    if (!cache.has(name)) {
      const text = await readFile(path.join(resultsDir, `${name}.json`), "utf8").catch(() => undefined);
      cache.set(name, text === undefined ? undefined : (JSON.parse(text) as Results));
    }
    return cache.get(name);
  };
  const parts: string[] = [];
  let last = 0;
  for (const match of readme.matchAll(SECTION)) {
    const [whole, name, tableName] = match as unknown as [string, string, string | undefined];
    const open = `<!-- bench:${name}${tableName ? `:${tableName}` : ""} -->`;
    parts.push(readme.slice(last, match.index), `${open}\n${renderSection(await load(name), name, tableName)}\n<!-- /bench -->`);
    last = (match.index ?? 0) + whole.length;
  }
  parts.push(readme.slice(last));
  return parts.join("");
}
