/** Loaders for the retrieval benchmark sets in ../shared/bench (jsonl docs/queries + qrels.tsv). */
import { readFile } from "node:fs/promises";
import path from "node:path";

/** A document of a benchmark set, with only the fields a knowledge entry would have. */
export type BenchDoc = { id: string; title: string; text: string };

/** A query of a benchmark set; `inItemText` marks clippy snippets that appear verbatim in their item. */
export type BenchQuery = { id: string; text: string; inItemText: boolean };

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

/** Where the shared benchmark sets live (override with CAIRN_BENCH_DIR). */
export const BENCH_DATA_DIR = process.env["CAIRN_BENCH_DIR"] ?? path.resolve(import.meta.dirname, "../../../shared/bench");

async function readJsonl(file: string): Promise<Record<string, unknown>[]> {
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

/** Load one set: `docs.jsonl` or `items.jsonl`, `queries.jsonl`, `qrels.tsv`. */
export async function loadDataset(name: "cranfield" | "review-clippy", dir = BENCH_DATA_DIR): Promise<Dataset> {
  const setDir = path.join(dir, name);
  const docFile = name === "review-clippy" ? "items.jsonl" : "docs.jsonl";
  const docs = (await readJsonl(path.join(setDir, docFile))).map((d) => ({
    id: str(d["id"]),
    title: str(d["title"]),
    text: str(d["text"]),
  }));
  const queries = (await readJsonl(path.join(setDir, "queries.jsonl"))).map((q) => ({
    id: str(q["id"]),
    text: str(q["text"]),
    inItemText: q["in_item_text"] === true,
  }));
  const qrels = await readQrels(path.join(setDir, "qrels.tsv"));
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
