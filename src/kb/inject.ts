/** `inject` by the knowledge base: serialised per agent and run (its cap) and per knowledge base (holdout), gated by the rule results of the lint cache. */
import { knowledgeDirProblem } from "../store/require.js";
import type { InjectInput, InjectResult } from "../types/inject.js";
import type { KbContext } from "./context.js";

/**
 * Two locks, both in `.cairn/`. The lock of one agent in one run is what keeps its cap of maxPerAgent (a MUST, 002)
 * across processes: only a concurrent call for the same agent and run contends for it, and it waits for that call (at
 * most AGENT_LOCK_WAIT_MS, then nothing is injected). The injections lock, taken next, serialises every injection of
 * the knowledge base, so holdout sees the other agents' injections of the run: it is waited for at most 1 s (a review
 * never stalls on it), then the call goes on with a warning. Its holder holds it for milliseconds: the cold start
 * (index, ledger, tokenizer) is done before either lock.
 */
const INJECT_LOCK_WAIT_MS = 1_000;
const AGENT_LOCK_WAIT_MS = 10_000;

/**
 * Knowledge for one agent in one run: at most maxPerAgent entries across all calls for that agent and run,
 * above the relevance floor; records an `injected` event unless dryRun. Never throws for search failures.
 */
export async function injectKnowledge(ctx: Pick<KbContext, "layout" | "config" | "ledger" | "append" | "lint" | "now" | "today" | "origin" | "repair" | "search" | "searchIndex" | "agentScopes">, input: InjectInput): Promise<InjectResult> {
  (await import("../retrieval/tokens.js")).prepareTokenCounter();
  const { injectInputSchema, parseInput } = await import("../lifecycle/inputs.js");
  parseInput(injectInputSchema, input, "inject: the input", '{ run: "pr-123", agent: "security", keywords?: ["auth"], summary?: "…" }');
  const { inject } = await import("../retrieval/inject.js");
  const { acquireLock } = await import("../store/lock.js");
  let release: (() => Promise<void>) | undefined;
  const lockWarnings: string[] = [];
  // A root without a knowledge dir gets no lock (no .cairn/ is created there); the search below reports it.
  const usable = !(await knowledgeDirProblem(ctx.layout).catch(() => "unsafe"));
  // Calls in this process (an MCP server's clients fanning out at the start of a review) wait their turn here, with no
  // time limit: the holder is this process, and it is making progress. The lock file's 1 s limit is for other
  // processes; without this queue, this process's own calls timed out on their own lock and exceeded the cap.
  const turn = !input.dryRun && usable ? await inProcessTurn(ctx.layout.cache) : undefined;
  if (!input.dryRun && usable) {
    await ctx.repair().catch((error: Error) => lockWarnings.push(`could not repair pending changes (${error.message})`));
    // What a cold call spends most on (opening and refreshing the index, folding the ledger, loading the tokenizer) is
    // done before the locks: processes launched together do it side by side. Failures are the search's to report.
    const { tokenCounter } = await import("../retrieval/tokens.js");
    await Promise.all([ctx.searchIndex({ search: true }).catch(() => undefined), ctx.ledger.state().catch(() => undefined), tokenCounter().catch(() => undefined)]);
    const { agentKey } = await import("../entry/agent-name.js");
    const { runIdKey } = await import("../ledger/run-id.js");
    const { createHash } = await import("node:crypto");
    const agentRun = createHash("sha256").update(`${runIdKey(input.run)}\0${agentKey(input.agent)}`).digest("hex").slice(0, 16);
    try {
      release = await acquireLock(ctx.layout.cache, `inject-${agentRun}`, { wait: AGENT_LOCK_WAIT_MS, root: ctx.layout.root, purpose: `injections for agent "${input.agent}" in run "${input.run}"`, onWarning: (message) => lockWarnings.push(message) });
    } catch (error) {
      // Unserialised, two calls for this agent could each hand it its cap: inject nothing, and the review goes on.
      turn?.();
      const { unavailable } = await import("../retrieval/inject.js");
      return unavailable(ctx, input, `could not serialise injections (${(error as Error).message}); nothing injected, so that the cap of ${ctx.config.maxPerAgent} per agent and run holds; continuing without knowledge context`);
    }
    try {
      const all = await acquireLock(ctx.layout.cache, "inject", { wait: INJECT_LOCK_WAIT_MS, root: ctx.layout.root, purpose: "injections", onWarning: (message) => lockWarnings.push(message) });
      const agentLock = release;
      release = async () => {
        await all().catch(() => {});
        await agentLock();
      };
    } catch (error) {
      // The cap holds by the agent's lock; holdout may miss an injection another agent is making at this moment.
      lockWarnings.push(`could not serialise this injection with the others of this knowledge base (${(error as Error).message}); the cap holds (its agent's lock), but holdout may not see an injection made at this moment`);
    }
  }
  // A ledger that cannot be read says nothing of the injections this agent already had in the run: its free slots
  // are unknown (remaining: null), not used up.
  let ledgerUnreadable = false;
  const events = async () => {
    try {
      return (await ctx.ledger.state()).state;
    } catch (error) {
      ledgerUnreadable = true;
      throw error;
    }
  };
  try {
    const made = await inject(
      {
        layout: ctx.layout,
        config: ctx.config,
        events,
        search: (query, options) => ctx.search(query, options),
        append: ctx.append,
        agentScopes: () => ctx.agentScopes(),
        gate: () => cachedGate(ctx),
        claimedTwice: async () => (await ctx.searchIndex({ records: false })).index.catalogue.claimedTwice(),
        // Read only when this agent already had a call in the run: is this one a retry of it?
        allEvents: async () => (await ctx.ledger.read()).events,
        origin: () => ctx.origin(),
        today: ctx.today(),
        now: () => ctx.now(),
        stampTime: () => ctx.append.stampTime(),
      },
      input,
    );
    const result = ledgerUnreadable && !made.entries.length ? { ...made, remaining: null } : made;
    return lockWarnings.length ? { ...result, warnings: [...lockWarnings, ...result.warnings] } : result;
  } finally {
    await release?.().catch(() => {});
    turn?.();
  }
}

/** Injections waiting in this process, by knowledge base (its `.cairn/`): the tail of each queue. */
const queues = new Map<string, Promise<void>>();

/** Wait for the injections of this process queued before this one; the returned function ends this one's turn. */
async function inProcessTurn(key: string): Promise<() => void> {
  const before = queues.get(key) ?? Promise.resolve();
  let end!: () => void;
  const mine = new Promise<void>((resolve) => (end = resolve));
  const tail = before.then(() => mine);
  queues.set(key, tail);
  await before;
  return () => {
    end();
    if (queues.get(key) === tail) queues.delete(key);
  };
}

/**
 * The inject gate's rule results from the catalogue and the lint cache (computed and kept for entries not in it). A
 * process that has not read the whole lint cache reads only the candidates' results (a few of 10k).
 */
async function cachedGate(ctx: Pick<KbContext, "layout" | "config" | "ledger" | "lint" | "today" | "searchIndex">): Promise<import("../retrieval/inject.js").CachedGate> {
  // The candidates' records are read one at a time (the whole records file is not needed).
  const { index } = await ctx.searchIndex({ records: false });
  const { recordLinter } = await import("../check/catalogue-lint.js");
  const { contentKey, lintKey, readLintLookup } = await import("../check/lint-cache.js");
  const key = lintKey(ctx.config, ctx.layout.cache);
  const input = { layout: ctx.layout, config: ctx.config, events: (await ctx.ledger.state()).state, today: ctx.today(), key };
  const linters: Array<Awaited<ReturnType<typeof recordLinter>>> = [];
  return {
    record: (p) => index.recordAt(p),
    final: async (records) => {
      const want = { contents: new Set(records.map(contentKey)), paths: new Set(records.map((r) => r.path)) };
      // A long-lived process (an MCP server) reads the file once: the lookup is kept until the whole cache is.
      const base = ctx.lint.cache ?? (await (ctx.lint.lookup ??= readLintLookup(ctx.layout.cache, key))).subset(want);
      const linter = await recordLinter(input, base);
      linters.push(linter);
      return linter.final(records);
    },
    save: async () => {
      for (const linter of linters) {
        const cache = await linter.save("merge");
        // What the gate computed joins the lookup, so a long-lived process's next inject gates it from memory.
        if (cache.partial) (await ctx.lint.lookup)?.absorb(cache);
      }
    },
  };
}
