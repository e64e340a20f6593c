import path from "node:path";
import { describeBlocking } from "../../check/gate.js";
import type { Diagnostic } from "../../entry/diagnostic.js";
import type { KnowledgeBase } from "../../knowledge-base.js";
import type { SearchResult } from "../../retrieval/search.js";
import { readEntryFile } from "../../store/files.js";
import { EXIT, json, table, terminalText, type Io } from "../output.js";
import { relevanceLabel, snippet, wordMatch } from "../snippet.js";

type Opts = { limit?: number; explain?: boolean; includeArchived?: boolean; json?: boolean; agent?: string; changedFiles?: string[] };

export async function search(kb: KnowledgeBase, io: Io, query: string, opts: Opts): Promise<number> {
  const limit = opts.limit ?? 10;
  const response = await kb.search(query, {
    limit,
    ...(opts.includeArchived ? { includeArchived: true } : {}),
    ...(opts.agent ? { agent: opts.agent } : {}),
    ...(opts.changedFiles?.length ? { changedFiles: opts.changedFiles } : {}),
    ...(opts.explain ? { withVectors: true, explain: true } : {}),
  });
  // --explain also says whether inject would hand the entry out (the gate runs every rule on it).
  const gate = opts.explain ? await kb.gate(response.results) : undefined;
  const gateOf = (p: string) => {
    const verdict = gate?.get(p);
    if (!verdict) return undefined;
    const brief = (d: Diagnostic) => ({ rule: d.rule, line: d.line, message: d.message });
    return { injectable: verdict.injectable, withheldBy: verdict.blocking.map(brief), drift: verdict.drift.map(brief) };
  };
  if (opts.json) {
    json(io, {
      results: response.results.map(({ explain, ...r }) => (opts.explain ? { ...r, explain: { ...explain, gate: gateOf(r.path) } } : r)),
      warnings: response.warnings,
      mode: response.mode,
      ...(opts.explain ? { belowFloor: response.belowFloor ?? [] } : {}),
    });
    return EXIT.ok;
  }
  for (const w of response.warnings) io.err(`warning: ${w}`);
  if (!response.results.length) {
    io.out("no entries match above the relevance floor");
    if (opts.explain) printBelowFloor(io, response.belowFloor ?? []);
    return EXIT.ok;
  }
  if (!opts.explain) {
    io.out(await readable(kb, query, response.results, io.color === true));
    return EXIT.ok;
  }
  const headers = ["#", "id", "score", "lexical", "vector", "changed", "inject gate", "path"];
  const rows = response.results.map((r, i) => {
    const base = [String(i + 1), r.id + (r.state === "archived" ? " (archived)" : ""), r.score.toFixed(4)];
    const e = r.explain;
    return [
      ...base,
      e.lexical ? lexicalCell(e.lexical) : "-",
      e.vector ? `#${e.vector.rank} cos ${e.vector.similarity.toFixed(3)}${e.vector.weight ? "" : " (w 0)"}` : "-",
      changedCell(e),
      gateCell(gateOf(r.path)),
      r.path,
    ];
  });
  io.out(table(headers, rows));
  const weight = response.results.find((r) => r.explain.vector)?.explain.vector?.weight ?? 0;
  io.out(`\nscore = weighted reciprocal-rank fusion of the lexical rank and the changed-code strength${weight ? ` and the vector rank (weight ${weight})` : "; the vector rank is shown for information (weight 0: the embedding model did not improve ranking in the benchmarks, see README)"}`);
  printBelowFloor(io, response.belowFloor ?? []);
  return EXIT.ok;
}

/** Each result as a person reads it: rank, title and id, relevance, path, and a snippet with the query's words marked. */
async function readable(kb: KnowledgeBase, query: string, results: SearchResult[], color: boolean): Promise<string> {
  const mark = color ? (w: string) => `\x1b[1m${w}\x1b[22m` : (w: string) => `**${w}**`;
  const blocks = await Promise.all(
    results.map(async (r, i) => {
      const { entry } = await readEntryFile(kb.layout, { abs: path.join(kb.layout.root, r.path), rel: r.path, state: r.state });
      const title = typeof entry?.frontmatter.title === "string" ? entry.frontmatter.title : undefined;
      const finding = entry?.finding.text ?? "";
      const tags = Array.isArray(entry?.frontmatter.tags) ? entry.frontmatter.tags.join(" ") : "";
      const words = wordMatch(query, [title, finding, entry?.evidence.text, entry?.verify.text, tags].filter(Boolean).join("\n"));
      const flags = [r.state === "archived" ? "archived" : "", r.status !== "observed" ? r.status : ""].filter(Boolean);
      // Titles, ids, paths and findings are what a change wrote: shown, never obeyed by the terminal.
      return [
        terminalText(`${i + 1}. ${title ? `${title} (${r.id})` : r.id}${flags.length ? ` [${flags.join(", ")}]` : ""}`),
        terminalText(`   ${relevanceLabel(words, Boolean(r.explain.changedFiles))} · ${r.path}`),
        ...(finding ? [`   ${snippet(terminalText(finding, { lines: true }), query, { mark })}`] : []),
      ].join("\n");
    }),
  );
  return `${blocks.join("\n\n")}\n\n(relevance: how many of the query's words the entry contains; results are ranked by the fused score, see --explain)`;
}

function lexicalCell(l: NonNullable<SearchResult["explain"]["lexical"]>): string {
  return `#${l.rank} bm25 ${l.score.toFixed(2)} evidence ${(l.evidence ?? 0).toFixed(2)} match ${(l.matched * 100).toFixed(0)}%`;
}

/** The best candidates the relevance floor cut, and why: what a reviewer needs to see when the right entry is missing. */
function printBelowFloor(io: Io, below: SearchResult[]): void {
  if (!below.length) {
    io.out("\nno other candidates: nothing else matched the query");
    return;
  }
  io.out("\nbelow the relevance floor (not returned):");
  for (const r of below) io.out(terminalText(`- ${r.id} (${r.path}): ${(r.explain.cut ?? []).join("; ")}`));
}

function gateCell(gate: { injectable: boolean; withheldBy: Array<{ rule: string; line: number }>; drift: unknown[] } | undefined): string {
  if (!gate) return "-";
  if (!gate.injectable) return `withheld: ${describeBlocking(gate.withheldBy, 2)}`;
  return gate.drift.length ? `ok (${gate.drift.length} anchor warning${gate.drift.length === 1 ? "" : "s"})` : "ok";
}

/** How the entry's anchors touch the change; "away" when it cites files and none of them changed (holdout does not test it there). */
function changedCell(e: SearchResult["explain"]): string {
  const touch = e.changedFiles ? `${e.changedFiles.touch} (+${e.changedFiles.strength})` : "";
  if (!e.awayFromChange) return touch || "-";
  return touch ? `${touch}, away` : "away (cites other files)";
}
