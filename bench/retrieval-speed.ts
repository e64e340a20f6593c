/**
 * The warm path must not get slower: `search` and `inject` p50 at 10k entries, this checkout
 * against a base build (dist/ of the commit this branch started from), in the same process and the
 * same run, queries interleaved so machine load hits both alike. Each build gets its own copy of
 * the same generated corpus (their index formats differ). Lexical mode (the default fusion never
 * embeds the query, so the embedder is not on the warm path).
 *
 *   npx tsx bench/retrieval-speed.ts --base /tmp/cairn-base/dist [--quick]
 *
 * Make the base build with: git archive BASE | tar -x -C /tmp/cairn-base, link node_modules, tsc -p tsconfig.build.json.
 */
import { cp, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { openKnowledgeBase } from "../src/index.js";
import { benchArgs, log } from "./lib/args.js";
import { generateQueries, writeCorpus } from "./lib/corpus.js";
import { fmt, writeResults, type GoalRow } from "./lib/report.js";
import { summarize } from "./lib/stats.js";

type Kb = { index(): Promise<unknown>; search(q: string, o?: object): Promise<unknown>; inject(i: object): Promise<unknown> };

async function main(): Promise<void> {
  const { quick } = benchArgs();
  const at = process.argv.indexOf("--base");
  const baseDist = at >= 0 ? process.argv[at + 1] : process.env["CAIRN_BASE_DIST"];
  if (!baseDist) {
    // Part of `npm run bench`: without a base build there is nothing to compare, and that is not a failure.
    log("skipped: give the base build with --base DIR or CAIRN_BASE_DIST (a dist/ built from the base commit), see the header of bench/retrieval-speed.ts");
    return;
  }
  const entries = quick ? 2_000 : 10_000;
  const dirs: string[] = [];
  try {
    const rootNew = await mkdtemp(path.join(os.tmpdir(), "cairn-speed-new-"));
    dirs.push(rootNew);
    log(`generating ${entries} entries`);
    await writeCorpus(rootNew, { entries });
    const rootBase = await mkdtemp(path.join(os.tmpdir(), "cairn-speed-base-"));
    dirs.push(rootBase);
    await cp(rootNew, rootBase, { recursive: true });
    const base = (await import(pathToFileURL(path.join(path.resolve(baseDist), "index.js")).href)) as { openKnowledgeBase: (o: object) => Promise<Kb> };
    const kbs: Record<string, Kb> = {
      base: await base.openKnowledgeBase({ root: rootBase, embedder: null }),
      now: (await openKnowledgeBase({ root: rootNew, embedder: null })) as unknown as Kb,
    };
    for (const [name, kb] of Object.entries(kbs)) {
      log(`indexing (${name})`);
      await kb.index();
    }
    const queries = generateQueries((quick ? 10 : 40) + 3, 7);
    const times: Record<string, { search: number[]; inject: number[] }> = { base: { search: [], inject: [] }, now: { search: [], inject: [] } };
    for (const [i, q] of queries.entries()) {
      for (const name of i % 2 ? ["now", "base"] : ["base", "now"]) {
        const kb = kbs[name]!;
        let t0 = performance.now();
        await kb.search(q.query, { agent: q.agent });
        const search = performance.now() - t0;
        t0 = performance.now();
        await kb.inject({ run: `speed-${i}`, agent: q.agent, keywords: q.keywords, summary: q.summary });
        const inject = performance.now() - t0;
        if (i < 3) continue;
        times[name]!.search.push(search);
        times[name]!.inject.push(inject);
      }
    }
    const s = (name: string, what: "search" | "inject") => summarize(times[name]![what]);
    const goals: GoalRow[] = (["search", "inject"] as const).map((what) => {
      const now = s("now", what);
      const was = s("base", what);
      return {
        metric: `${what} warm p50 at ${fmt(entries)} entries (lexical)`,
        goal: "≤ 1.2× the base build, same run",
        measured: `p50 ${fmt(now.p50)} ms (p95 ${fmt(now.p95)})`,
        baseline: `base p50 ${fmt(was.p50)} ms (${fmt(now.p50 / was.p50)}×)`,
        pass: now.p50 <= 1.2 * was.p50,
      };
    });
    for (const g of goals) console.log(`${g.metric}: ${g.measured}; ${g.baseline}`);
    const file = await writeResults("retrieval-speed", goals, { quick, entries, base: baseDist, times: Object.fromEntries(Object.entries(times).map(([k, v]) => [k, { search: summarize(v.search), inject: summarize(v.inject) }])) });
    log(`wrote ${file}`);
  } finally {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  }
}

await main();
