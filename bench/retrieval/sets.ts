/**
 * Every shared set as the pipeline sees it, and the two ways its queries are asked: `plain` (the
 * query text alone, as `cairn search` gets it) and `inject` (what an orchestrator gives `cairn
 * inject`: an agent's domain keywords, a prose PR summary, and for review-anchored the diff and
 * changed files), built with inject's own `injectQueries` and `parseDiffEvidence`.
 */
import path from "node:path";
import type { AnchorRef } from "../../src/indexing/document.js";
import type { LexicalDoc } from "../../src/indexing/lexical/index.js";
import { parseDiffEvidence } from "../../src/retrieval/diff.js";
import { injectQueries } from "../../src/retrieval/inject.js";
import { materializeAnchored, resolveAnchors } from "./anchored-code.js";
import { BENCH_DATA_DIR, queryParity, type BenchDoc, type BenchQuery, type Dataset } from "./dataset.js";
import type { PipelineSet, Probe } from "./pipeline.js";

export type QueryStyle = "plain" | "inject";

/** The same mapping for every set: `title` is the entry title, `text` its body, anchors their path and symbol. */
export function benchLexicalDoc(doc: BenchDoc, anchoredCode?: string): LexicalDoc {
  const anchors = (doc.anchors ?? []).map((a) => [a.path, a.symbol].filter(Boolean).join(" ")).join("\n");
  return { id: doc.id, fields: { title: doc.title, body: doc.text, ...(anchors ? { anchors } : {}), ...(anchoredCode ? { anchoredCode } : {}) } };
}

/** What the product built for each review-anchored entry: its anchored code and its anchors where they point now (product-kb.ts). */
export type ProductAnchoring = { code: ReadonlyMap<string, string>; anchors: ReadonlyMap<string, AnchorRef[]> };

/**
 * The set for the pipeline. For review-anchored, anchors point where `product` says (the library's
 * resolution in the materialised tree: a symbol at its definition when the lines drifted), and with
 * `anchoredCode` the entry's anchored-code field holds the code the product read for it. Without
 * `product`, the bench's own resolver (anchored-code.ts, phase 1) stands in.
 */
export function pipelineSet(dataset: Dataset, options: { anchoredCode?: boolean; product?: ProductAnchoring } = {}): PipelineSet & { resolvedShare?: number } {
  if (dataset.name !== "review-anchored") return { docs: dataset.docs, toDoc: (d) => benchLexicalDoc(d) };
  const product = options.product;
  if (product) {
    const resolved = [...product.code.values()].filter((c) => c.trim()).length;
    return {
      docs: dataset.docs,
      toDoc: (d) => benchLexicalDoc(d, options.anchoredCode ? product.code.get(d.id) : undefined),
      anchorsOf: (id) => product.anchors.get(id) ?? [],
      resolvedShare: dataset.docs.length ? resolved / dataset.docs.length : 0,
    };
  }
  const root = materializeAnchored(path.join(BENCH_DATA_DIR, "review-anchored"));
  const resolved = resolveAnchors(root, dataset.docs);
  const refs = new Map<string, AnchorRef[]>();
  let found = 0;
  let all = 0;
  for (const [id, anchors] of resolved) {
    refs.set(
      id,
      anchors.map((a) => {
        all++;
        const ok = a.resolution.how !== "missing";
        if (ok) found++;
        // A symbol that no longer resolves keeps the range its entry was written with (a drifted anchor).
        return { path: a.path, startLine: ok ? a.resolution.start : a.start, endLine: ok ? a.resolution.end : a.end, ...(a.symbol ? { symbol: a.symbol } : {}) };
      }),
    );
  }
  const code = (id: string) => (resolved.get(id) ?? []).map((a) => a.code).join("\n");
  return {
    docs: dataset.docs,
    toDoc: (d) => benchLexicalDoc(d, options.anchoredCode ? code(d.id) : undefined),
    anchorsOf: (id) => refs.get(id) ?? [],
    resolvedShare: all ? found / all : 0,
  };
}

/** Generic review agents: each inject-style query goes to one of them (by query id), as an orchestrator would fan out. */
export const AGENT_KEYWORDS: readonly string[][] = [
  ["correctness", "bugs", "edge cases", "error handling"],
  ["performance", "latency", "memory", "allocations"],
  ["security", "input validation", "injection", "authentication"],
  ["maintainability", "readability", "naming", "tests"],
];

/** The kind of sentence PR descriptions carry besides their subject: long prose with nothing to find. */
const BOILERPLATE = [
  "This pull request is ready for review; the tests pass locally and the documentation was updated where needed.",
  "Please take a look when you have time, I am happy to address any comments or split the change up.",
  "The change is covered by the existing test suite and by a new regression test for the case described above.",
];

const ordinal = (q: BenchQuery): number => Number(/\d+/.exec(q.id)?.[0] ?? "0");

/** What an orchestrator gives `kb.inject` for a review-anchored query (the same keywords, summary, diff and changed files `probeOf` builds its probe from). */
export function injectInputOf(query: BenchQuery): { agent: string; keywords: string[]; summary: string; diff: string; changedFiles: string[] } {
  const n = ordinal(query);
  const keywords = AGENT_KEYWORDS[n % AGENT_KEYWORDS.length]!;
  return { agent: keywords[0]!, keywords, summary: `${query.summary ?? ""}\n\n${BOILERPLATE[n % BOILERPLATE.length]!}`, diff: query.text, changedFiles: query.changedFiles ?? [] };
}

/** How `query` is asked in `style`. */
export function probeOf(dataset: Dataset, query: BenchQuery, style: QueryStyle): Probe {
  if (style === "plain") return { full: query.text };
  const n = ordinal(query);
  const keywords = AGENT_KEYWORDS[n % AGENT_KEYWORDS.length]!;
  const filler = BOILERPLATE[n % BOILERPLATE.length]!;
  if (dataset.name === "review-anchored") {
    const diff = parseDiffEvidence(query.text);
    const q = injectQueries({ keywords, summary: `${query.summary ?? ""}\n\n${filler}`, changedFiles: query.changedFiles ?? [] }, diff);
    return { ...q, change: { paths: [...new Set([...(query.changedFiles ?? []), ...diff.paths])], files: diff.files } };
  }
  const summary = dataset.name === "review-clippy" ? `Review this change:\n\n\`\`\`\n${query.text}\n\`\`\`\n\n${filler}` : `${query.text}\n\n${filler}`;
  return injectQueries({ keywords, summary });
}

export { queryParity };
