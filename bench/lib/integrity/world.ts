/**
 * The hidden truth of the integrity simulation (issue 7): a small code base, four agents with
 * domains, and patterns — true ones findable by one or by several agents, false positives, fixed
 * issues, regressions (archived entries whose pattern comes back) and patterns appearing mid-way —
 * each with a finding, paraphrases, an evidence anchor into a real source file, and how often the
 * code it lives in changes (its relevance). Deterministic for a seed.
 */
import { random } from "../corpus.js";

export const AGENTS = ["security", "performance", "correctness", "reliability"] as const;
export type Agent = (typeof AGENTS)[number];

export type PatternKind = "true-single" | "true-multi" | "false-positive" | "fixed" | "regression" | "mid-way";

export type Pattern = {
  /** Entry id (file name) when the pattern has an entry; mid-way patterns get theirs from compounding. */
  id: string;
  kind: PatternKind;
  domain: Agent;
  /** Agents that can find it on their own while it is live. */
  finders: Agent[];
  /** Agents the entry is meant for (`agents:`), the ones retrieval shows it to. */
  audience: Agent[];
  /** Probability that a run changes the code it lives in. */
  relevance: number;
  /** Live in runs [liveFrom, liveTo] (1-based, inclusive); false positives are never live. */
  liveFrom: number;
  liveTo: number;
  file: string;
  symbol: string;
  lines: [number, number];
  finding: string;
  /** Rewordings an agent may use instead of the finding's words. */
  paraphrases: string[];
  verify: string;
  /** The entry exists at the start, in knowledge/ or (regressions) knowledge/archive/. */
  initial: "active" | "archived" | "none";
};

export type World = { patterns: Pattern[]; sources: Record<string, string> };

type Defect = { domain: Agent; text: (s: string) => string; para: Array<(s: string) => string>; verify: (s: string) => string };

const DEFECTS: Defect[] = [
  { domain: "security", text: (s) => `${s}() compares secret tokens with === instead of a constant-time comparison, leaking timing information.`, para: [(s) => `Timing leak: ${s}() checks the secret with plain string equality rather than a constant-time compare.`, (s) => `Secrets in ${s}() are matched by ordinary equality, so response time reveals how much of a guess is right.`], verify: (s) => `grep for === on tokens in ${s}().` },
  { domain: "security", text: (s) => `${s}() passes request input to a shell command without escaping, allowing command injection.`, para: [(s) => `Command injection: ${s}() builds a shell command line from unescaped request data.`, (s) => `Unsanitised parameters reach the shell inside ${s}(), so a caller can run arbitrary commands.`], verify: (s) => `Check how ${s}() builds its command line.` },
  { domain: "security", text: (s) => `${s}() joins file paths from request parameters, allowing path traversal outside the upload root.`, para: [(s) => `Path traversal: ${s}() trusts a request parameter as part of a filesystem path.`, (s) => `A "../" in the parameter escapes the upload root because ${s}() joins it into the path unchecked.`], verify: (s) => `Look for path.join with request data in ${s}().` },
  { domain: "security", text: (s) => `${s}() redirects to a target taken from the query string without checking it, an open redirect.`, para: [(s) => `Open redirect: ${s}() follows the next parameter from the query string unchecked.`, (s) => `Attackers can send users anywhere since ${s}() redirects to whatever URL the query names.`], verify: (s) => `Check the redirect target validation in ${s}().` },
  { domain: "security", text: (s) => `${s}() writes session identifiers into the application log in plain text.`, para: [(s) => `Session ids leak into logs: ${s}() prints them verbatim.`, (s) => `Anyone reading the logs can hijack sessions because ${s}() records the raw session identifier.`], verify: (s) => `grep the log calls in ${s}() for session ids.` },
  { domain: "security", text: (s) => `${s}() accepts state-changing form posts without verifying a CSRF token.`, para: [(s) => `Missing CSRF protection: ${s}() never validates the anti-forgery token.`, (s) => `Cross-site requests can change state because ${s}() skips the CSRF token check on posts.`], verify: (s) => `Check for a CSRF token check in ${s}().` },
  { domain: "performance", text: (s) => `${s}() issues one database query per item inside a loop (N+1 queries).`, para: [(s) => `N+1 queries: ${s}() queries the database once for every element of the list.`, (s) => `Round trips grow with the list size because ${s}() fetches each row in its own query.`], verify: (s) => `Count the queries ${s}() issues for ten items.` },
  { domain: "performance", text: (s) => `${s}() reads the whole file into memory before sending it instead of streaming.`, para: [(s) => `Memory blow-up: ${s}() buffers the entire file rather than streaming it.`, (s) => `Large downloads exhaust memory since ${s}() loads the complete file first.`], verify: (s) => `Check whether ${s}() uses a stream.` },
  { domain: "performance", text: (s) => `${s}() compiles the same regular expression on every call inside a hot path.`, para: [(s) => `Regex recompiled per call: ${s}() builds the pattern each time it runs.`, (s) => `CPU is wasted because ${s}() constructs its regular expression again on each invocation.`], verify: (s) => `Look for new RegExp inside ${s}().` },
  { domain: "performance", text: (s) => `${s}() caches results in a map that never evicts entries, so memory grows without bound.`, para: [(s) => `Unbounded cache: ${s}() keeps every result forever with no eviction.`, (s) => `Memory climbs steadily because the cache behind ${s}() is never trimmed.`], verify: (s) => `Check the cache size limit in ${s}().` },
  { domain: "performance", text: (s) => `${s}() hashes passwords synchronously on the request thread, blocking the event loop.`, para: [(s) => `Event loop blocked: ${s}() runs the password hash synchronously.`, (s) => `Requests stall while ${s}() computes a slow hash on the main thread.`], verify: (s) => `grep for hashSync in ${s}().` },
  { domain: "performance", text: (s) => `${s}() returns every row of the list endpoint with no pagination.`, para: [(s) => `No pagination: ${s}() sends the complete result set in one response.`, (s) => `Responses get huge because ${s}() never limits or pages the rows it returns.`], verify: (s) => `Check for limit and offset in ${s}().` },
  { domain: "correctness", text: (s) => `${s}() does not await the write promise, so write errors are silently lost.`, para: [(s) => `Unawaited promise: failures of the write in ${s}() are never observed.`, (s) => `Errors vanish because ${s}() fires the write and forgets it.`], verify: (s) => `Look for a missing await in ${s}().` },
  { domain: "correctness", text: (s) => `${s}() stores money totals in floating point, so sums drift by fractions of a cent.`, para: [(s) => `Float money: ${s}() adds currency amounts as binary floats.`, (s) => `Rounding errors creep into totals because ${s}() uses floating point for cents.`], verify: (s) => `Check the number type of totals in ${s}().` },
  { domain: "correctness", text: (s) => `${s}() compares dates without their time zone, so deadlines shift by hours.`, para: [(s) => `Time zone bug: ${s}() drops the zone when comparing timestamps.`, (s) => `Deadlines are off by the UTC offset because ${s}() compares local and UTC times.`], verify: (s) => `Check the date comparison in ${s}().` },
  { domain: "correctness", text: (s) => `${s}() has an off-by-one error at the last page boundary and skips the final item.`, para: [(s) => `Off by one: ${s}() loses the last element at the page edge.`, (s) => `The final record never appears because ${s}() stops one short at the boundary.`], verify: (s) => `Test ${s}() with exactly one full page plus one item.` },
  { domain: "correctness", text: (s) => `${s}() swallows exceptions in an empty catch block and reports success.`, para: [(s) => `Swallowed error: ${s}() catches everything and still returns ok.`, (s) => `Failures look like successes since ${s}() ignores the caught exception.`], verify: (s) => `grep for empty catch blocks in ${s}().` },
  { domain: "correctness", text: (s) => `${s}() dereferences an optional field without a null check and crashes on legacy records.`, para: [(s) => `Null dereference: ${s}() assumes the optional field is always present.`, (s) => `Old records crash ${s}() because it reads the field before checking it exists.`], verify: (s) => `Check the null guard in ${s}().` },
  { domain: "reliability", text: (s) => `${s}() retries failed calls immediately with no backoff, amplifying outages.`, para: [(s) => `Retry storm: ${s}() retries in a tight loop with no delay.`, (s) => `A struggling upstream gets hammered because ${s}() retries without waiting.`], verify: (s) => `Check the retry delay in ${s}().` },
  { domain: "reliability", text: (s) => `${s}() calls the upstream service without a timeout, so one slow dependency hangs requests.`, para: [(s) => `Missing timeout: ${s}() waits forever on the upstream call.`, (s) => `Requests pile up whenever the dependency is slow since ${s}() sets no deadline.`], verify: (s) => `Check the timeout option in ${s}().` },
  { domain: "reliability", text: (s) => `${s}() does not release its lock on the error path, deadlocking later callers.`, para: [(s) => `Leaked lock: an exception in ${s}() leaves the lock held.`, (s) => `Later callers block forever because ${s}() forgets to unlock when it throws.`], verify: (s) => `Check that ${s}() releases the lock in finally.` },
  { domain: "reliability", text: (s) => `${s}() overwrites the state file in place, so a crash leaves it half written.`, para: [(s) => `Torn writes: ${s}() rewrites the file without a temp file and rename.`, (s) => `A crash mid-write corrupts the state since ${s}() does not write atomically.`], verify: (s) => `Check for write-then-rename in ${s}().` },
  { domain: "reliability", text: (s) => `${s}() acknowledges queue messages before processing them, losing work on a crash.`, para: [(s) => `Early ack: ${s}() confirms the message before the work is done.`, (s) => `Messages disappear after a crash because ${s}() acks them up front.`], verify: (s) => `Check the ack order in ${s}().` },
  { domain: "reliability", text: (s) => `${s}() reports healthy even when its database connection is down.`, para: [(s) => `Lying health check: ${s}() ignores the database state.`, (s) => `Load balancers keep sending traffic since ${s}() says ok with the database unreachable.`], verify: (s) => `Check what ${s}() probes.` },
];

const MODULES = ["billing", "orders", "accounts", "search", "uploads", "reports", "notify", "catalog", "jobs", "exports", "profiles", "admin", "audit", "payments", "sessions", "inventory", "shipping", "webhooks", "metrics", "settings", "invoices", "coupons", "reviews", "ledger", "imports", "mailer", "scheduler", "gateway", "tenants", "quotas", "backups", "alerts", "media", "feeds"];
const VERBS = ["load", "save", "sync", "render", "verify", "resolve", "dispatch", "collect", "apply", "refresh", "publish", "compute"];
const NOUNS = ["Batch", "Record", "Summary", "Request", "Token", "Entry", "Snapshot", "Window", "Report", "Cursor", "Digest", "Bundle"];

export type WorldOptions = {
  seed: number;
  /** Runs of the simulation (mid-way and regression timings scale with it). Default 40. */
  runs?: number;
  /** How many patterns of each kind. Default: the issue's mix (8 / 6 / 8 / 4 / 4 / 4). */
  counts?: Partial<Record<PatternKind, number>>;
};

const DEFAULT_COUNTS: Record<PatternKind, number> = { "true-single": 8, "true-multi": 6, "false-positive": 8, fixed: 4, regression: 4, "mid-way": 4 };

export function buildWorld(options: WorldOptions): World {
  const rand = random(options.seed * 7919 + 17);
  const runs = options.runs ?? 40;
  const counts = { ...DEFAULT_COUNTS, ...options.counts };
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
  const between = (lo: number, hi: number) => lo + rand() * (hi - lo);
  const defects = shuffle([...DEFECTS], rand);
  const modules = shuffle([...MODULES], rand);
  const patterns: Pattern[] = [];
  const sources: Record<string, string> = {};
  const others = (domain: Agent, n: number) => shuffle(AGENTS.filter((a) => a !== domain), rand).slice(0, n);
  let k = 0;
  for (const kind of Object.keys(DEFAULT_COUNTS) as PatternKind[]) {
    for (let i = 0; i < counts[kind]; i++, k++) {
      const defect = defects[k % defects.length]!;
      const module = modules[k % modules.length]!;
      const symbol = `${pick(VERBS)}${pick(NOUNS)}`;
      const file = `src/${module}/${symbol.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}.ts`;
      const start = 3 + Math.floor(rand() * 20);
      const lines: [number, number] = [start, start + 4];
      sources[file] = sourceFile(symbol, start);
      const domain = defect.domain;
      const multi = kind === "true-multi" || kind === "mid-way" || kind === "regression";
      const finders: Agent[] = kind === "false-positive" ? [] : multi ? [domain, ...others(domain, kind === "true-multi" ? 1 + Math.floor(rand() * 2) : 2)] : [domain];
      // An entry is meant for its domain's agent; other finders come across it without being shown it.
      const audience: Agent[] = [domain];
      // Sparse enough that an agent rarely has more relevant entries than its five slots (the cap then decides, not the lifecycle).
      const relevance = kind === "false-positive" ? between(0.55, 0.75) : between(0.3, 0.5);
      const fixAt = Math.round(between(runs * 0.2, runs * 0.4));
      const appearAt = Math.round(between(runs * 0.15, runs * 0.5));
      patterns.push({
        id: `${module}-${slug(defect.text("x")).slice(2, 40)}`.replace(/-+$/, ""),
        kind,
        domain,
        finders,
        audience,
        relevance,
        liveFrom: kind === "regression" || kind === "mid-way" ? appearAt : 1,
        liveTo: kind === "false-positive" ? 0 : kind === "fixed" ? fixAt : runs,
        file,
        symbol,
        lines,
        finding: `In ${module}, ${defect.text(symbol)}`,
        paraphrases: defect.para.map((p) => `${p(symbol)} (${module} module)`),
        verify: defect.verify(symbol),
        initial: kind === "regression" ? "archived" : kind === "mid-way" ? "none" : "active",
      });
    }
  }
  return { patterns, sources };
}

/** A source file whose lines [start, start + 4] hold `symbol`, so anchors resolve. */
function sourceFile(symbol: string, start: number): string {
  const lines = Array.from({ length: start - 1 }, (_, i) => `// line ${i + 1}`);
  lines.push(`export function ${symbol}(input: string): string {`, "  const value = input.trim();", "  if (!value) return '';", "  return value;", "}", "");
  return lines.join("\n");
}

/** The entry file of a pattern (frontmatter + finding + evidence + verify). */
export function entryFile(pattern: Pattern, lastConfirmed: string, archived?: string): string {
  const fm = [`lastConfirmed: ${lastConfirmed}`, "provenance: independent", `agents: [${pattern.audience.join(", ")}]`];
  if (archived) fm.push(`archived: ${archived}`, "archivedReason: fixed at the time; archived by hand");
  return `---\n${fm.join("\n")}\n---\n${pattern.finding}\n\nEvidence: ${anchorOf(pattern)} — where it happens.\nVerify: ${pattern.verify}\n`;
}

export function anchorOf(pattern: Pattern): string {
  return `${pattern.file}:${pattern.lines[0]}-${pattern.lines[1]}, ${pattern.symbol}()`;
}

function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");
}

function shuffle<T>(list: T[], rand: () => number): T[] {
  for (let i = list.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [list[i], list[j]] = [list[j]!, list[i]!];
  }
  return list;
}
