/**
 * The warm library rows of bench/scale.ts, run as a child process with plain node against one build's
 * dist/: open the knowledge base, warm it up, then time `kb.search` and `kb.inject` (a new run id per
 * call) over the given queries, interleaved. Prints JSON: the timings and the process's RSS.
 *
 *   node bench/lib/scale-warm.mjs DIST ROOT QUERIES.json
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";

const [dist, root, queriesFile] = process.argv.slice(2);
if (!dist || !root || !queriesFile) throw new Error("usage: node bench/lib/scale-warm.mjs DIST ROOT QUERIES.json");
/** @type {Array<{ agent: string; keywords: string[]; summary: string; query: string }>} */
const queries = JSON.parse(readFileSync(queriesFile, "utf8"));
const { openKnowledgeBase } = await import(pathToFileURL(path.join(path.resolve(dist), "index.js")).href);

const mb = (bytes) => Math.round((bytes / 1024 / 1024) * 10) / 10;
const t0 = performance.now();
const kb = await openKnowledgeBase({ root });
await kb.search(queries[0].query);
const firstMs = performance.now() - t0;

const search = [];
const inject = [];
for (const [i, q] of queries.entries()) {
  let t = performance.now();
  await kb.search(q.query, { agent: q.agent });
  const s = performance.now() - t;
  t = performance.now();
  await kb.inject({ run: `scale-warm-${process.pid}-${i}`, agent: q.agent, keywords: q.keywords, summary: q.summary });
  const j = performance.now() - t;
  if (i < 3) continue; // warm-up
  search.push(s);
  inject.push(j);
}
const memory = process.memoryUsage();
process.stdout.write(
  `${JSON.stringify({ firstMs, search, inject, rssMb: mb(memory.rss), heapUsedMb: mb(memory.heapUsed), peakRssMb: Math.round((process.resourceUsage().maxRSS / 1024) * 10) / 10 })}\n`,
);
await kb.close?.();
process.exit(0);
