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
 * After merging main into a branch, compare with main's build: the commit the branch started from
 * would mix main's own changes into the ratio.
 *
 * Also, same run, the work a refresh does when nothing changed (in process: one stat per entry file,
 * and now one per anchored source file) and cold `cairn search` / `cairn inject` processes (medians of
 * 5, interleaved): a cold process must not read the anchored source files of unchanged entries.
 */
import { cp, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { runProcess } from "./lib/process.js";
import { cliIn } from "./lib/cli-path.js";
import { benchArgs, log } from "./lib/args.js";
import { generateQueries, writeCorpus } from "./lib/corpus.js";
import { fmt, writeResults, type GoalRow } from "./lib/report.js";
import { summarize } from "./lib/stats.js";

type Kb = { index(): Promise<unknown>; search(q: string, o?: object): Promise<unknown>; inject(i: object): Promise<unknown>; searchIndex(): Promise<{ index: { refresh(): Promise<unknown> } }> };

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
      // This checkout's build (npm run bench builds it first), as the base is a build: same code path for both.
      now: await ((await import("../dist/index.js")) as unknown as { openKnowledgeBase: (o: object) => Promise<Kb> }).openKnowledgeBase({ root: rootNew, embedder: null }),
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
    // A refresh with nothing changed, in process (what every search does at most every 2 s without a watcher).
    const refresh: Record<string, number[]> = { base: [], now: [] };
    for (let i = 0; i < (quick ? 5 : 15); i++) {
      for (const name of i % 2 ? ["now", "base"] : ["base", "now"]) {
        const { index } = await kbs[name]!.searchIndex();
        const t0 = performance.now();
        await index.refresh();
        refresh[name]!.push(performance.now() - t0);
      }
    }
    // Cold processes on the saved indexes (interleaved, medians of 5).
    const cli = { base: cliIn(path.resolve(baseDist)), now: cliIn(path.resolve(import.meta.dirname, "../dist")) };
    const roots: Record<string, string> = { base: rootBase, now: rootNew };
    const cold: Record<string, { search: number[]; inject: number[] }> = { base: { search: [], inject: [] }, now: { search: [], inject: [] } };
    const q0 = queries[0]!;
    for (let i = 0; i < (quick ? 3 : 5); i++) {
      for (const name of i % 2 ? (["now", "base"] as const) : (["base", "now"] as const)) {
        const root = roots[name]!;
        const search = await runProcess(process.execPath, [cli[name], "--root", root, "search", q0.query, "--json"]);
        const inject = await runProcess(process.execPath, [cli[name], "--root", root, "inject", "--run", `cold-${i}`, "--agent", q0.agent, "--keywords", q0.keywords.join(","), "--summary", q0.summary, "--dry-run"]);
        if (search.code !== 0 || inject.code !== 0) throw new Error(`cold ${name} run failed: ${search.stderr}${inject.stderr}`);
        cold[name]!.search.push(search.ms);
        cold[name]!.inject.push(inject.ms);
      }
    }
    const s = (name: string, what: "search" | "inject") => summarize(times[name]![what]);
    const goals: GoalRow[] = (["search", "inject"] as const).map((what): GoalRow => {
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
    const r = (name: string) => summarize(refresh[name]!);
    goals.push({
      metric: `refresh with nothing changed at ${fmt(entries)} entries, in process (stats every entry file; now also every anchored source file)`,
      goal: "—",
      measured: `p50 ${fmt(r("now").p50)} ms`,
      baseline: `base p50 ${fmt(r("base").p50)} ms (${fmt(r("now").p50 / r("base").p50)}×)`,
      pass: null,
    });
    for (const what of ["search", "inject"] as const) {
      const c = (name: string) => summarize(cold[name]![what]);
      goals.push({
        metric: `cold \`cairn ${what}\` process at ${fmt(entries)} entries, index saved and fresh (median)`,
        goal: "≤ 1.2× the base build, same run",
        measured: `${fmt(c("now").p50)} ms`,
        baseline: `base ${fmt(c("base").p50)} ms (${fmt(c("now").p50 / c("base").p50)}×)`,
        pass: c("now").p50 <= 1.2 * c("base").p50,
      });
    }
    for (const g of goals) console.log(`${g.metric}: ${g.measured}; ${g.baseline}`);
    const file = await writeResults("retrieval-speed", goals, {
      quick,
      entries,
      base: baseDist,
      times: Object.fromEntries(Object.entries(times).map(([k, v]) => [k, { search: summarize(v.search), inject: summarize(v.inject) }])),
      refresh: Object.fromEntries(Object.entries(refresh).map(([k, v]) => [k, summarize(v)])),
      cold: Object.fromEntries(Object.entries(cold).map(([k, v]) => [k, { search: summarize(v.search), inject: summarize(v.inject) }])),
    });
    log(`wrote ${file}`);
  } finally {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  }
}

await main();
