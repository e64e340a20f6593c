/**
 * A knowledge base with a real review history for the report's tests, made through the library in a
 * real git repository: three agents over ten runs (inject, record, holdout, decay), a compounded
 * entry, hand archive / restore / supersede / retract / set-status, a verification that passed and one
 * that failed, an anchor that drifted and one that points at nothing, and an entry whose title and
 * finding are HTML/script payloads (entries arrive by pull request).
 */
import { tempRepo, type TempRepo } from "../diff/repo.js";
import { fakeEmbedder } from "../helpers/fake-embedder.js";
import { clockAt, type Clock } from "../lifecycle/setup.js";
import { openKnowledgeBase, type KnowledgeBase } from "../../src/knowledge-base.js";

/** Would open a dialog and request a file if the page ever rendered entry text as HTML. */
export const XSS_TITLE = "<img src=x onerror=alert(1)></script><script>alert(2)</script>";

/** The project's configuration (a file, so that the CLI sees it too): decay after 6 runs, near decay from 3, holdout in 3 runs. */
export const CONFIG = { decayAfterRuns: 6, nearDecayRatio: 0.5, holdout: 0.34 };

function entry(finding: string, evidence: string, verify: string, extra: string[] = []): string {
  return ["---", "lastConfirmed: 2026-02-12", "provenance: independent", ...extra, "---", finding, "", `Evidence: ${evidence}`, `Verify: ${verify}`, ""].join("\n");
}

const SOURCE = {
  "src/auth.ts": "export function handleRequest() {\n  return fetch('x');\n}\n\nexport function compareTokens(a: string, b: string) {\n  return a === b;\n}\n",
  "src/db.ts": "export function openPool() {\n  return { size: 10 };\n}\n\nexport function query(sql: string) {\n  return sql;\n}\n",
  "src/errors.ts": "export function sendError(sql: string) {\n  return { error: sql };\n}\n",
  "src/render.ts": "export function renderTitle(t: string) {\n  return `<h1>${t}</h1>`;\n}\n",
};

export const ENTRIES: Record<string, string> = {
  "knowledge/token-compare.md": entry(
    "Session tokens are compared with === instead of a constant-time comparison.",
    "src/auth.ts:5-7, compareTokens() — plain equality on secrets.",
    "grep for `a === b` in src/auth.ts.",
    ["agents: [security]", "title: Tokens compared in non-constant time", "tags: [auth, timing]"],
  ),
  "knowledge/pool-size.md": entry(
    "Database pool size is hard-coded and ignores the configured limit.",
    "src/db.ts:1-3, openPool() — size fixed at 10.",
    "grep for `size: 10` in src/db.ts.",
    ["agents: [performance]", "tags: [database]"],
  ),
  "knowledge/query-in-loop.md": entry(
    "Database queries inside loops cause N+1 round trips in list endpoints.",
    "src/db.ts:5-7, query() — called once per row.",
    "grep for `forEach(query` in src/db.ts.",
    ["agents: [performance]", "tags: [database, performance]"],
  ),
  "knowledge/cache-stampede.md": entry(
    "Cache misses on hot keys trigger a stampede of identical database loads.",
    "src/db.ts:1-3, openPool() — no request coalescing.",
    "Re-read the loader and check whether concurrent misses share one load.",
    ["agents: [performance]"],
  ),
  "knowledge/moved-handler.md": entry(
    "Request handlers skip the context check after the upstream fetch call.",
    "src/auth.ts:1-3, handleRequest() — no ctx check after fetch.",
    "Re-read handleRequest and check the context after the upstream call.",
    ["agents: [correctness]"],
  ),
  "knowledge/missing-file.md": entry(
    "Retry loops sleep without jitter, so clients synchronise their retries.",
    "src/retry.ts:10-20, retryWithBackoff() — fixed delay.",
    "Re-read the retry loop and look for jitter.",
    ["agents: [correctness]"],
  ),
  "knowledge/html-title.md": entry(
    `Titles are rendered without escaping ${XSS_TITLE} in the page header.`,
    "src/render.ts:1-3, renderTitle() — template string with raw input.",
    "grep for `<h1>` in src/render.ts.",
    ["agents: [correctness]", `title: ${JSON.stringify(XSS_TITLE)}`, "tags: [xss]"],
  ),
  "knowledge/old-advice.md": entry(
    "Legacy auth tokens must be rotated every ninety days by hand.",
    "src/auth.ts:5-7, compareTokens() — legacy token path.",
    "Re-read the token path and check the rotation job.",
    ["agents: [security]"],
  ),
  "knowledge/new-advice.md": entry(
    "Auth tokens are rotated automatically; legacy manual rotation is obsolete.",
    "src/auth.ts:5-7, compareTokens() — token path.",
    "Re-read the token path and check the rotation job.",
    ["agents: [security]"],
  ),
  "knowledge/wrong-claim.md": entry(
    "The renderer double-encodes ampersands in titles.",
    "src/render.ts:1-3, renderTitle() — encoding.",
    "Re-read renderTitle and check the encoding.",
    ["agents: [correctness]"],
  ),
};

export const AGENTS = {
  security: ["session", "tokens", "constant", "time", "comparison", "legacy", "rotation"],
  performance: ["database", "pool", "queries", "loops", "cache", "sql"],
  correctness: ["handlers", "context", "fetch", "retry", "titles", "escaping", "renderer"],
};

export type History = TempRepo & { kb: KnowledgeBase; clock: Clock };

/** Finding texts per entry, as agents word them. */
const SAYS: Record<string, string> = {
  "token-compare": "Tokens compared with === rather than in constant time.",
  "pool-size": "The pool size is fixed at 10.",
  "cache-stampede": "Cache stampede on hot keys.",
  "moved-handler": "The handler never checks the context after fetch.",
  "missing-file": "Retries have no jitter.",
  "sql-echo": "SQL is echoed back in error responses.",
};

/**
 * Ten reviews (decayAfterRuns 6, near decay from 3, holdout 3 runs), so that decay, holdout and
 * recurrence all happen: security finds the token pattern even when withheld; performance reports the
 * cache stampede only when shown (primed-only: archived); correctness finds the pool entry on its own.
 */
export async function reviewHistory(): Promise<History> {
  const repo = await tempRepo();
  for (const [rel, text] of Object.entries({ ...SOURCE, ...ENTRIES, "cairn.config.json": JSON.stringify(CONFIG) })) await repo.write(rel, text);
  const clock = clockAt();
  const kb = await openKnowledgeBase({ root: repo.dir, now: () => clock.now, embedder: fakeEmbedder(), actor: "tester" });
  await kb.init();
  repo.commit("initial");
  await kb.verify();
  for (let i = 1; i <= 10; i++) {
    const run = `pr-${i}`;
    clock.tick();
    const shown: Record<string, string[]> = {};
    for (const [agent, keywords] of Object.entries(AGENTS)) shown[agent] = (await kb.inject({ run, agent, keywords })).entries.map((e) => e.id);
    const findings: Array<{ agent: string; text: string; entry: string }> = [];
    const says = (agent: string, entry: string) => findings.push({ agent, text: SAYS[entry] as string, entry });
    says("security", "token-compare");
    if (shown.performance?.includes("cache-stampede")) says("performance", "cache-stampede");
    // A second spelling of the same agent: names compare case- and whitespace-insensitively.
    if (shown.performance?.includes("pool-size")) findings.push({ agent: "Performance ", text: "Pool size is hard-coded.", entry: "pool-size" });
    if (i % 2 === 0) says("correctness", "pool-size");
    if (shown.correctness?.includes("moved-handler")) says("correctness", "moved-handler");
    if (i === 4) says("security", "moved-handler");
    if (i === 6) says("security", "missing-file");
    if (i > 3 && shown.performance?.includes("sql-echo")) says("performance", "sql-echo");
    await kb.recordFindings(run, findings);
    if (i === 3) {
      const compounded = await kb.compound(run, [
        {
          text: "Error responses echo the raw SQL statement back to the client.",
          agents: ["security", "correctness"],
          evidence: ["src/errors.ts:1-3, sendError() — the statement is returned."],
          verify: ["grep for `sql` in src/errors.ts."],
          durable: true,
        },
      ]);
      if (compounded.created.length !== 1) throw new Error(`fixture: compound created nothing: ${JSON.stringify(compounded)}`);
      await kb.archive("query-in-loop", "retired by hand: the list endpoints were rewritten");
    }
    if (i === 5) {
      await kb.restore("query-in-loop", "restored by hand: the pattern is back");
      await kb.supersede("old-advice", "new-advice");
      await kb.setStatus("wrong-claim", "disputed");
    }
    if (i === 7) {
      // retract deletes only what git has: the status change above is committed first.
      repo.commit("wrong-claim disputed");
      await kb.retract("wrong-claim");
    }
  }
  // The pattern of pool-size's verify step is gone (fixed), and the auth handlers moved 3 lines down.
  await repo.write("src/db.ts", "export function openPool(size: number) {\n  return { size };\n}\n\nexport function query(sql: string) {\n  return sql;\n}\n");
  await repo.write("src/auth.ts", `// auth\n// helpers\n\n${SOURCE["src/auth.ts"]}`);
  repo.commit("fix the pool size; move the handlers");
  await kb.verify();
  return { ...repo, kb, clock };
}
