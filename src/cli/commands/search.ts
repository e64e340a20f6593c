import { describeBlocking } from "../../check/gate.js";
import type { Diagnostic } from "../../entry/diagnostic.js";
import type { KnowledgeBase } from "../../knowledge-base.js";
import { EXIT, json, table, type Io } from "../output.js";

type Opts = { limit?: number; explain?: boolean; includeArchived?: boolean; json?: boolean; agent?: string; changedFiles?: string[] };

export async function search(kb: KnowledgeBase, io: Io, query: string, opts: Opts): Promise<number> {
  const limit = opts.limit ?? 10;
  const response = await kb.search(query, {
    limit,
    ...(opts.includeArchived ? { includeArchived: true } : {}),
    ...(opts.agent ? { agent: opts.agent } : {}),
    ...(opts.changedFiles?.length ? { changedFiles: opts.changedFiles } : {}),
    ...(opts.explain ? { withVectors: true } : {}),
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
    json(io, { results: response.results.map(({ explain, ...r }) => (opts.explain ? { ...r, explain: { ...explain, gate: gateOf(r.path) } } : r)), warnings: response.warnings, mode: response.mode });
    return EXIT.ok;
  }
  for (const w of response.warnings) io.err(`warning: ${w}`);
  if (!response.results.length) {
    io.out("no entries match above the relevance floor");
    return EXIT.ok;
  }
  const headers = opts.explain ? ["#", "id", "score", "lexical", "vector", "changed", "inject gate", "path"] : ["#", "id", "score", "path"];
  const rows = response.results.map((r, i) => {
    const base = [String(i + 1), r.id + (r.state === "archived" ? " (archived)" : ""), r.score.toFixed(4)];
    if (!opts.explain) return [...base, r.path];
    const e = r.explain;
    return [
      ...base,
      e.lexical ? `#${e.lexical.rank} bm25 ${e.lexical.score.toFixed(2)} match ${(e.lexical.matched * 100).toFixed(0)}%` : "-",
      e.vector ? `#${e.vector.rank} cos ${e.vector.similarity.toFixed(3)}${e.vector.weight ? "" : " (w 0)"}` : "-",
      e.changedFiles ? `#${e.changedFiles.rank} touch ${e.changedFiles.touch}` : "-",
      gateCell(gateOf(r.path)),
      r.path,
    ];
  });
  io.out(table(headers, rows));
  if (opts.explain) {
    const weight = response.results.find((r) => r.explain.vector)?.explain.vector?.weight ?? 0;
    io.out(`\nscore = weighted reciprocal-rank fusion of the lexical and changed-file ranks${weight ? ` and the vector rank (weight ${weight})` : "; the vector rank is shown for information (weight 0: the embedding model did not improve ranking in the benchmarks, see README)"}`);
  }
  return EXIT.ok;
}

function gateCell(gate: { injectable: boolean; withheldBy: Array<{ rule: string; line: number }>; drift: unknown[] } | undefined): string {
  if (!gate) return "-";
  if (!gate.injectable) return `withheld: ${describeBlocking(gate.withheldBy, 2)}`;
  return gate.drift.length ? `ok (${gate.drift.length} anchor warning${gate.drift.length === 1 ? "" : "s"})` : "ok";
}
