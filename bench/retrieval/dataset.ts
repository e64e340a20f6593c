/** Loaders for the retrieval benchmark sets in ../shared/bench (jsonl docs/queries + qrels.tsv). */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";

/** An evidence anchor of a benchmark document (review-anchored): a path and a 1-based inclusive line range. */
export type BenchAnchor = { path: string; start: number; end: number; symbol?: string };

/** A document of a benchmark set, with only the fields a knowledge entry would have. */
export type BenchDoc = {
  id: string;
  title: string;
  text: string;
  /** Evidence anchors (review-anchored only). */
  anchors?: BenchAnchor[];
};

/** A query of a benchmark set; `inItemText` marks clippy snippets that appear verbatim in their item. */
export type BenchQuery = {
  id: string;
  text: string;
  inItemText: boolean;
  /** review-anchored: the later commit's subject (a PR title); the diff is `text`. */
  summary?: string;
  /** review-anchored: every file the later commit touched. */
  changedFiles?: string[];
  /** review-anchored: the subject repeats a relevant item's text (reverts, re-lands); left out of headline numbers. */
  messageOverlap?: boolean;
};

/** A named slice of the queries reported separately (headline, tuning half, held-out half...). */
export type QuerySubset = { name: string; includes: (query: BenchQuery) => boolean };

export type Dataset = {
  name: string;
  docs: BenchDoc[];
  queries: BenchQuery[];
  /** query id → (doc id → graded relevance); 0 means judged not relevant. */
  qrels: Map<string, Map<string, number>>;
  /** The subset whose numbers are the headline figures. */
  headline: string;
  subsets: QuerySubset[];
};

/** The first `shared/bench` found beside the checkout or one of its ancestors (a worktree sits deeper than main). */
function findBenchDir(): string {
  for (let dir = path.resolve(import.meta.dirname, "../.."); ; dir = path.dirname(dir)) {
    const candidate = path.join(path.dirname(dir), "shared", "bench");
    if (existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) return path.resolve(import.meta.dirname, "../../../shared/bench");
  }
}

/** Where the shared benchmark sets live (override with CAIRN_BENCH_DIR). */
export const BENCH_DATA_DIR = process.env["CAIRN_BENCH_DIR"] ?? findBenchDir();

/** The sets this loader knows. */
export type SetName = "cranfield" | "review-clippy" | "review-anchored";

export async function readJsonl(file: string): Promise<Record<string, unknown>[]> {
  const text = await readFile(file, "utf8");
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line, i) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch (cause) {
        throw new Error(`Cannot parse line ${i + 1} of ${file}: expected one JSON object per line`, { cause });
      }
    });
}

async function readQrels(file: string): Promise<Map<string, Map<string, number>>> {
  const qrels = new Map<string, Map<string, number>>();
  for (const line of (await readFile(file, "utf8")).split("\n")) {
    const [qid, docId, rel] = line.trim().split("\t");
    if (qid === undefined || docId === undefined || rel === undefined) continue;
    const judged = qrels.get(qid) ?? new Map<string, number>();
    judged.set(docId, Number(rel));
    qrels.set(qid, judged);
  }
  return qrels;
}

const str = (value: unknown): string => (typeof value === "string" ? value : "");

/** Tuning uses odd numeric query ids, the held-out half the even ones. */
export function queryParity(query: BenchQuery): "odd" | "even" {
  const digits = /\d+/.exec(query.id)?.[0] ?? "0";
  return Number(digits) % 2 === 1 ? "odd" : "even";
}

const tuneSubsets = (base: (q: BenchQuery) => boolean): QuerySubset[] => [
  { name: "tune (odd ids)", includes: (q) => base(q) && queryParity(q) === "odd" },
  { name: "held-out (even ids)", includes: (q) => base(q) && queryParity(q) === "even" },
];

function anchorsOf(value: unknown): BenchAnchor[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.map((a: Record<string, unknown>) => ({
    path: str(a["path"]),
    start: Number(a["start"]),
    end: Number(a["end"]),
    ...(typeof a["symbol"] === "string" ? { symbol: a["symbol"] } : {}),
  }));
}

/** Load one set: `docs.jsonl` or `items.jsonl`, `queries.jsonl`, `qrels.tsv`. */
export async function loadDataset(name: SetName, dir = BENCH_DATA_DIR): Promise<Dataset> {
  const setDir = path.join(dir, name);
  const docFile = name === "cranfield" ? "docs.jsonl" : "items.jsonl";
  const docs = (await readJsonl(path.join(setDir, docFile))).map((d): BenchDoc => {
    const anchors = anchorsOf(d["anchors"]);
    return { id: str(d["id"]), title: str(d["title"]), text: str(d["text"]), ...(anchors ? { anchors } : {}) };
  });
  const queries = (await readJsonl(path.join(setDir, "queries.jsonl"))).map((q): BenchQuery => ({
    id: str(q["id"]),
    text: str(q["text"]),
    inItemText: q["in_item_text"] === true,
    ...(typeof q["summary"] === "string" ? { summary: q["summary"] } : {}),
    ...(Array.isArray(q["changed_files"]) ? { changedFiles: (q["changed_files"] as unknown[]).map(str) } : {}),
    ...(typeof q["message_overlap"] === "boolean" ? { messageOverlap: q["message_overlap"] } : {}),
  }));
  const qrels = await readQrels(path.join(setDir, "qrels.tsv"));
  if (name === "review-anchored") {
    const headline = (q: BenchQuery) => q.messageOverlap !== true;
    return {
      name,
      docs,
      queries,
      qrels,
      headline: "headline (excl. message_overlap)",
      subsets: [
        { name: "headline (excl. message_overlap)", includes: headline },
        { name: "all", includes: () => true },
        ...tuneSubsets(headline),
      ],
    };
  }
  if (name === "review-clippy") {
    const headline = (q: BenchQuery) => !q.inItemText;
    return {
      name,
      docs,
      queries,
      qrels,
      headline: "headline (excl. in_item_text)",
      subsets: [
        { name: "headline (excl. in_item_text)", includes: headline },
        { name: "all", includes: () => true },
        ...tuneSubsets(headline),
      ],
    };
  }
  return {
    name,
    docs,
    queries,
    qrels,
    headline: "all",
    subsets: [{ name: "all", includes: () => true }, ...tuneSubsets(() => true)],
  };
}
