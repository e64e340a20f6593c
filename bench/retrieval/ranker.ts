/** The pluggable ranker contract of the retrieval benchmark. */
import type { BenchDoc, BenchQuery } from "./dataset.js";

/** query id → doc ids, best first (at least the top 10). */
export type Rankings = Map<string, string[]>;

/**
 * A retrieval method under test. It receives the whole collection and every query, so it can
 * build whatever index it needs (BM25 postings, embeddings, both) and rank all queries at once.
 * Vector-only and hybrid rankers plug in here too; a hybrid can call two rankers and fuse.
 */
export type Ranker = {
  /** Column label in the report. */
  name: string;
  rank: (docs: readonly BenchDoc[], queries: readonly BenchQuery[], depth: number) => Promise<Rankings>;
};
