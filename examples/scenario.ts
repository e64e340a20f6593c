/**
 * A scripted 30-run review of a small project by three agents, in a real git repository, with a
 * clock that advances one day per run. Shared by `examples/simulate.ts` (prints a table) and
 * `test/e2e/simulation.test.ts` (asserts the lifecycle rules on the outcome).
 *
 * The simulated agents behave like real ones with confirmation bias: an agent re-reports an entry it
 * was shown (a primed confirmation), and some agents independently re-discover real problems.
 */
import { execFileSync } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { openKnowledgeBase, type CairnConfig, type Embedder, type KnowledgeBase } from "../src/index.js";

export type AgentName = "security" | "performance" | "correctness";
export const AGENTS: readonly AgentName[] = ["security", "performance", "correctness"];

/** The entries the scenario follows, by role. */
export const IDS = {
  /** A real problem: injected into security, independently re-found by correctness every 4th run. */
  truePattern: "token-compare-not-constant-time",
  /** A false positive: only ever re-reported by performance, the agent that is shown it. */
  falsePositive: "n-plus-one-queries-in-list-endpoints",
  /** Confirmed by a human in run 6; decays later; recurs and is restored by compounding in run 22. */
  manual: "cache-keys-omit-tenant",
  /** Written by compounding in run 14. */
  compounded: "sql-statements-built-by-string-concatenation-allow-injection",
} as const;

/** Run in which the human confirms IDS.manual, and the runs of the compounding events. */
export const SCRIPT = { manualConfirmRun: 6, independentEvery: 4, createRun: 14, recurRun: 22, loneFlagRun: 10 } as const;

export type RunRow = {
  run: number;
  date: string;
  /** Entries injected into each agent in this run (all calls). */
  injected: Record<AgentName, number>;
  independent: number;
  primed: number;
  archived: string[];
  restored: string[];
  created: string[];
  /** Manual confirmations by a human after the run. */
  manual: string[];
  /** `unconfirmedRuns/decayAfterRuns` of the followed entries after the run, or `archived`. */
  counters: Record<keyof typeof IDS, string>;
  /** lastConfirmed of the followed entries after the run (null when the entry does not exist yet). */
  lastConfirmed: Record<keyof typeof IDS, string | null>;
};

export type SimulationOptions = {
  /** Number of runs. Default 30. */
  runs?: number;
  /** Embedder for retrieval (null = lexical only). Default null. */
  embedder?: Embedder | null;
  /** Called after each run with its row. Default none. */
  onRun?: (row: RunRow) => void;
  /**
   * Configuration. Default `{ holdout: "off" }`: the scripted expectations follow the spec's literal rule, which
   * holdout changes on purpose (an entry one run from decay is withheld first; see README "Holdout").
   */
  config?: Partial<CairnConfig>;
};

export type SimulationReport = { root: string; rows: RunRow[]; kb: KnowledgeBase; start: string };

const START = "2026-03-01T09:00:00.000Z";
const INITIAL_CONFIRMED = "2026-02-20";

const SOURCES: Record<string, string> = {
  "src/session.ts": [
    "export function checkToken(given: string, expected: string): boolean {",
    "  return given === expected;",
    "}",
    "",
    "export function sessionCookie(id: string): string {",
    "  return `sid=${id}; Path=/`;",
    "}",
    "",
    "export function redirectAfterLogin(query: URLSearchParams): string {",
    "  return query.get('next') ?? '/';",
    "}",
    "",
  ].join("\n"),
  "src/db.ts": [
    "export async function findUser(db: Db, name: string) {",
    "  const sql = \"SELECT * FROM users WHERE name = '\" + name + \"'\";",
    "  return db.query(sql);",
    "}",
    "",
    "export async function listOrders(db: Db, ids: string[]) {",
    "  const out = [];",
    "  for (const id of ids) out.push(await db.query('SELECT * FROM orders WHERE id = ?', [id]));",
    "  return out;",
    "}",
    "",
    "type Db = { query(sql: string, args?: unknown[]): Promise<unknown> };",
    "",
  ].join("\n"),
  "src/login.ts": ["export function issueResetToken(user: string): string {", "  return `${user}:${Math.random()}`;", "}", ""].join("\n"),
  "src/cache.ts": ["export function cacheKey(path: string): string {", "  return `page:${path}`;", "}", ""].join("\n"),
  "src/export.ts": [
    "import { writeFile } from 'node:fs/promises';",
    "export function exportReport(file: string, body: string): void {",
    "  void writeFile(file, body);",
    "}",
    "",
  ].join("\n"),
};

type EntrySpec = { id: string; finding: string; evidence: string; verify: string; agents?: AgentName[] };

const ENTRIES: EntrySpec[] = [
  {
    id: IDS.truePattern,
    finding: "Session tokens are compared with === instead of a constant-time comparison, which leaks timing information.",
    evidence: "src/session.ts:1-3, checkToken() — plain string equality on secrets.",
    verify: "grep for === comparisons of tokens in src/session.ts.",
    agents: ["security"],
  },
  {
    id: IDS.falsePositive,
    finding: "List endpoints issue one database query per item inside loops (N+1 queries).",
    evidence: "src/db.ts:6-10, listOrders() — query inside a loop.",
    verify: "Count queries issued by listOrders for a list of ten ids.",
    agents: ["performance"],
  },
  {
    id: IDS.manual,
    finding: "Cache keys omit the tenant id, so cached pages can leak across tenants.",
    evidence: "src/cache.ts:1-3, cacheKey() — key built from the path only.",
    verify: "Check that cacheKey includes the tenant id.",
    agents: ["performance"],
  },
  ...[
    ["session-cookie-flags", "Session cookies lack the Secure and HttpOnly flags.", "src/session.ts:5-7, sessionCookie()"],
    ["login-open-redirect", "Login redirects take the next target from the query string unchecked.", "src/session.ts:9-11, redirectAfterLogin()"],
    ["reset-tokens-never-expire", "Password reset tokens never expire once issued.", "src/login.ts:1-3, issueResetToken()"],
    ["login-rate-limit", "Login endpoints have no rate limit, allowing credential stuffing against session tokens.", "src/login.ts"],
    ["jwt-alg-none", "Session tokens signed as JWTs are accepted when the algorithm header says none.", "src/login.ts"],
    ["csrf-missing", "Session-authenticated form posts do not check a CSRF token.", "src/login.ts"],
  ].map(([id, finding, evidence]): EntrySpec => ({ id: id!, finding: finding!, evidence: `${evidence} — seen in review.`, verify: "Read the session and login helpers.", agents: ["security"] })),
  {
    id: "export-write-unawaited",
    finding: "File writes in export jobs are not awaited, so write errors are silently lost.",
    evidence: "src/export.ts:2-4, exportReport() — writeFile promise dropped.",
    verify: "grep for writeFile calls without await in src/export.ts.",
    agents: ["correctness"],
  },
];

type AgentQuery = { keywords: string[]; changedFiles: string[]; summary: boolean; limit?: number };

const AGENT_QUERIES: Record<AgentName, AgentQuery[]> = {
  // Three calls: the changed files and PR summary first (limit 3), then domain keywords fill the cap, then a
  // follow-up call that the cap refuses.
  security: [
    { keywords: ["security", "session", "tokens"], changedFiles: ["src/session.ts"], summary: true, limit: 3 },
    { keywords: ["session", "tokens", "login", "cookies", "redirect"], changedFiles: [], summary: false },
    { keywords: ["session", "tokens", "login", "cookies", "redirect"], changedFiles: [], summary: false },
  ],
  performance: [{ keywords: ["performance", "queries", "loops", "cache"], changedFiles: ["src/db.ts", "src/cache.ts"], summary: true }],
  correctness: [{ keywords: ["correctness", "errors", "writes", "awaited"], changedFiles: ["src/export.ts"], summary: true }],
};

const FINDING_TEXT = {
  truePattern: "Session tokens are compared with === rather than a constant-time comparison, leaking timing information.",
  falsePositive: "List endpoints issue one database query per item inside loops (N+1 queries).",
  manual: "Cache keys omit the tenant id, so cached pages can leak across tenants.",
  sql: "SQL statements built by string concatenation allow injection; use parameterised queries.",
};

/** Run the scenario in `root` (an empty directory): files, `git init`, then `runs` reviews with a commit each. */
export async function runSimulation(root: string, options: SimulationOptions = {}): Promise<SimulationReport> {
  const runs = options.runs ?? 30;
  let now = new Date(START);
  const kb = await openKnowledgeBase({ root, now: () => now, embedder: options.embedder ?? null, actor: "cairn simulation", config: options.config ?? { holdout: "off" } });
  await setUp(root, kb, now);
  const rows: RunRow[] = [];
  for (let run = 1; run <= runs; run++) {
    now = new Date(now.getTime() + 86_400_000);
    rows.push(await review(kb, root, run, now));
    options.onRun?.(rows[rows.length - 1]!);
  }
  return { root, rows, kb, start: START };
}

async function setUp(root: string, kb: KnowledgeBase, now: Date): Promise<void> {
  for (const [rel, text] of Object.entries(SOURCES)) {
    await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await writeFile(path.join(root, rel), text);
  }
  await kb.init();
  for (const spec of ENTRIES) await writeFile(path.join(kb.layout.knowledge, `${spec.id}.md`), entryFile(spec));
  git(root, ["init", "-q"], now);
  commit(root, "initial knowledge", now);
}

async function review(kb: KnowledgeBase, root: string, run: number, now: Date): Promise<RunRow> {
  const id = `run-${String(run).padStart(2, "0")}`;
  const shown: Record<AgentName, string[]> = { security: [], performance: [], correctness: [] };
  for (const agent of AGENTS) {
    for (const query of AGENT_QUERIES[agent]) {
      const result = await kb.inject({
        run: id,
        agent,
        keywords: query.keywords,
        ...(query.summary ? { summary: `Pull request ${run}: refactors request handling.` } : {}),
        changedFiles: query.changedFiles,
        ...(query.limit ? { limit: query.limit } : {}),
      });
      shown[agent].push(...result.entries.map((e) => e.id));
    }
  }

  // What the agents report: primed re-reports of what they were shown, plus scripted independent discoveries.
  const findings: Array<{ agent: string; text: string }> = [];
  if (shown.security.includes(IDS.truePattern)) findings.push({ agent: "security", text: FINDING_TEXT.truePattern });
  if (shown.performance.includes(IDS.falsePositive)) findings.push({ agent: "performance", text: FINDING_TEXT.falsePositive });
  if (run % SCRIPT.independentEvery === 0) findings.push({ agent: "correctness", text: FINDING_TEXT.truePattern });
  const recorded = await kb.recordFindings(id, findings);

  // Synthesis: findings flagged by several agents go to compounding.
  const candidates = [];
  const evidence = { sql: ["src/db.ts:1-4, findUser() — user input concatenated into SQL."], cache: ["src/cache.ts:1-3, cacheKey() — no tenant in the key."] };
  if (run === SCRIPT.createRun) {
    candidates.push({ text: FINDING_TEXT.sql, agents: ["security", "correctness"], evidence: evidence.sql, verify: ["grep for string concatenation into SQL in src/db.ts."], durable: true });
  }
  if (run === SCRIPT.recurRun) {
    candidates.push({ text: FINDING_TEXT.manual, agents: ["security", "correctness"], evidence: evidence.cache, verify: ["Check that cacheKey includes the tenant id."], durable: true });
  }
  if (run === SCRIPT.loneFlagRun) {
    // Only the primed agent flags the false positive: not enough to compound or restore anything.
    candidates.push({ text: FINDING_TEXT.falsePositive, agents: ["performance"], evidence: ["src/db.ts:6-10, listOrders()"], verify: ["Count queries."], durable: true });
  }
  const compounded = candidates.length ? await kb.compound(id, candidates) : { created: [], restored: [] };

  const manual: string[] = [];
  if (run === SCRIPT.manualConfirmRun) {
    const done = await kb.confirm(IDS.manual);
    if (done.kind === "done") manual.push(IDS.manual);
  }
  commit(root, `review ${id}`, now);

  const status = await kb.status({ all: true });
  const counters = {} as RunRow["counters"];
  const lastConfirmed = {} as RunRow["lastConfirmed"];
  for (const [role, entryId] of Object.entries(IDS) as Array<[keyof typeof IDS, string]>) {
    const row = status.entries.find((e) => e.id === entryId);
    counters[role] = !row ? "-" : row.state === "archived" ? "archived" : `${row.unconfirmedRuns}/${row.decayAfterRuns}`;
    lastConfirmed[role] = row?.lastConfirmed ?? null;
  }
  return {
    run,
    date: now.toISOString().slice(0, 10),
    injected: { security: shown.security.length, performance: shown.performance.length, correctness: shown.correctness.length },
    independent: recorded.confirmations.filter((c) => c.provenance === "independent").length,
    primed: recorded.confirmations.filter((c) => c.provenance === "primed").length,
    archived: recorded.archived,
    restored: compounded.restored,
    created: compounded.created,
    manual,
    counters,
    lastConfirmed,
  };
}

function entryFile(spec: EntrySpec): string {
  const agents = spec.agents ? `agents: [${spec.agents.join(", ")}]\n` : "";
  return `---\nlastConfirmed: ${INITIAL_CONFIRMED}\nprovenance: independent\n${agents}---\n${spec.finding}\n\nEvidence: ${spec.evidence}\nVerify: ${spec.verify}\n`;
}

/** Run git in `root`, isolated from the user's configuration, with author and committer dates at `date`. */
export function git(root: string, args: string[], date?: Date): string {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_AUTHOR_NAME: "cairn simulation",
    GIT_AUTHOR_EMAIL: "simulation@example.com",
    GIT_COMMITTER_NAME: "cairn simulation",
    GIT_COMMITTER_EMAIL: "simulation@example.com",
    ...(date ? { GIT_AUTHOR_DATE: date.toISOString(), GIT_COMMITTER_DATE: date.toISOString() } : {}),
  };
  return execFileSync("git", args, { cwd: root, env, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
}

function commit(root: string, message: string, date: Date): void {
  git(root, ["add", "-A"], date);
  git(root, ["commit", "-q", "--allow-empty", "-m", message], date);
}
