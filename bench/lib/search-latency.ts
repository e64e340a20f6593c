/** Latency helpers shared by the index and lifecycle benches: warm queries and edit → searchable via the watcher. */
import { readFile, writeFile } from "node:fs/promises";
import { performance } from "node:perf_hooks";
import type { KnowledgeBase } from "../../src/index.js";
import type { Embedder } from "../../src/indexing/embedder.js";
import { hybridSearch } from "../../src/retrieval/search.js";
import { summarize, type Summary } from "./stats.js";

export type QueryLatency = {
  /** `kb.search()` as callers see it (query embedding and the once-a-second refresh included). */
  search: Summary;
  /** `hybridSearch()` on the already open index: no refresh from the files. */
  engine: Summary;
  /** The bare query embedding (`embedder.embed([query])`), when an embedder was given. */
  embed?: Summary;
  /** Mean number of results per query (a latency over empty results would mean little). */
  meanResults: number;
};

/** Time every query once (after 3 warm-up queries), interleaving the variants so load drift hits them alike. */
export async function measureQueries(kb: KnowledgeBase, queries: readonly string[], embedder?: Embedder): Promise<QueryLatency> {
  for (const q of queries.slice(0, 3)) await kb.search(q);
  const search: number[] = [];
  const engine: number[] = [];
  const embed: number[] = [];
  let results = 0;
  for (const q of queries) {
    let t0 = performance.now();
    const response = await kb.search(q);
    search.push(performance.now() - t0);
    results += response.results.length;
    const { index } = await kb.searchIndex();
    t0 = performance.now();
    await hybridSearch(index, q);
    engine.push(performance.now() - t0);
    if (embedder) {
      t0 = performance.now();
      await embedder.embed([q]);
      embed.push(performance.now() - t0);
    }
  }
  return { search: summarize(search), engine: summarize(engine), ...(embedder ? { embed: summarize(embed) } : {}), meanResults: results / queries.length };
}

export type WatchLatency = {
  /** Milliseconds from the start of each file write until `kb.search()` returned the edited entry at rank 1. */
  samples: number[];
  summary: Summary;
  /** Duration of the watcher's refreshes (from its `updated` events). */
  refresh: Summary;
  /** Edits that were not searchable within the timeout. */
  misses: number;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Start `kb.watch()`, then `edits` times: rewrite one entry's finding with new unique words and poll
 * `kb.search()` for that text until the entry is the top result.
 */
export async function measureWatchEdits(kb: KnowledgeBase, entries: ReadonlyArray<{ id: string; path: string }>, edits: number, timeoutMs = 15_000): Promise<WatchLatency> {
  const refresh: number[] = [];
  const handle = await kb.watch({ onEvent: (e) => (e.type === "updated" ? refresh.push(e.ms) : undefined) });
  const samples: number[] = [];
  let misses = 0;
  try {
    await handle.ready;
    for (let k = 0; k < edits; k++) {
      const target = entries[(k * 97 + 13) % entries.length]!;
      const original = await readFile(target.path, "utf8");
      const lines = original.split("\n");
      const findingLine = lines.indexOf("---", 1) + 1;
      const finding = `The quillwort${k} exporter in the marzipan${k} module drops trailing rows when its buffer flushes during shutdown; check that close() awaits the final flush.`;
      lines[findingLine] = finding;
      const t0 = performance.now();
      await writeFile(target.path, lines.join("\n"));
      let found = false;
      while (performance.now() - t0 < timeoutMs) {
        const response = await kb.search(finding, { limit: 3 });
        if (response.results[0]?.id === target.id) {
          found = true;
          break;
        }
        await sleep(5);
      }
      if (found) samples.push(performance.now() - t0);
      else misses++;
      await sleep(400); // let the save after the refresh finish before the next edit
    }
  } finally {
    await handle.close();
  }
  return { samples, summary: summarize(samples), refresh: summarize(refresh), misses };
}
