/**
 * kill -9 trials (issue 8, "Prove it"): a knowledge base, one mutating `cairn` command killed with
 * SIGKILL at a random moment, the next command (which repairs), then the invariants:
 *   - every entry file parses, and no id is in both knowledge/ and knowledge/archive/;
 *   - no entry is lost (every id is still somewhere, unless a `retracted` event says why);
 *   - the events agree with the files: each id is where its archived/restored/retracted events
 *     put it, archived files carry `archived`, active ones do not, `superseded` and
 *     `manual-confirmed` events match the frontmatter they go with;
 *   - the ledger has no invalid line (a torn line from a crash is allowed);
 *   - no change is left pending, and the next command itself succeeded.
 * `servedTrial` kills a `cairn watch` while it runs the command for another process instead: the client must say
 * so rather than run the command again itself.
 * Used by bench/crash.ts (hundreds of trials) and test/lifecycle/crash.test.ts (a few).
 */
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { cp, mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { parseEntry } from "../../src/entry/parse.js";
import { parseLedgerText } from "../../src/ledger/read.js";
import { CLI } from "./cli.js";

export const TODAY = new Date().toISOString().slice(0, 10);
const OLD = "2026-01-01";
const DECAYING = 40;

type Files = Record<string, string>;

function entry(finding: string, extra = "", evidence = "src/auth.ts:1-2, handleRequest() — upstream call."): string {
  return `---\nlastConfirmed: ${OLD}\nprovenance: independent\n${extra}---\n${finding}\n\nEvidence: ${evidence}\nVerify: grep for ctx.Err() after fetch() calls in src/.\n`;
}

const TOPICS = ["retries", "timeouts", "sessions", "cookies", "headers", "logging", "caching", "pooling", "tracing", "quotas"];

/** The template knowledge base every trial starts from (ids: d-* decay, a-* archived, c-* active, stable). */
export function templateFiles(): Files {
  const files: Files = {
    "cairn.config.json": JSON.stringify({ embedder: { provider: "none" }, decayAfterRuns: 3 }),
    "src/auth.ts": "export function handleRequest() {\n  return fetch('x');\n}\n",
    // What compound's findings and the archived entry it restores cite: places no other entry cites (a shared anchor
    // makes a candidate a duplicate, and compound would create and restore nothing).
    "src/queue.ts": "export function consumeA() {}\nexport function consumeB() {}\nexport function consumeC() {}\n",
    "src/client.ts": "export function resolveHost() {\n  return cache;\n}\n",
    // f-00 cites lines 1-3 of this file, where drainQueue() was before four lines were inserted above it: `check --fix`
    // rewrites its anchor to 5-7.
    "src/drift.ts": "export const a = 1;\nexport const b = 2;\nexport const c = 3;\nexport const d = 4;\nexport function drainQueue() {\n  return queue.shift();\n}\n",
    ".gitattributes": "knowledge/.ledger/*.jsonl merge=union\n",
    ".gitignore": ".cairn/\n",
    "knowledge/archive/.gitkeep": "",
    "knowledge/.ledger/.gitkeep": "",
    "knowledge/stable.md": entry("The stable entry that no scenario touches: handlers check cancellation."),
  };
  for (let i = 0; i < DECAYING; i++) files[`knowledge/d-${pad(i)}.md`] = entry(`Decaying pattern ${i}: middleware ${TOPICS[i % 10]} number ${i} leak contexts.`);
  for (let i = 0; i < 10; i++) files[`knowledge/archive/a-${pad(i)}.md`] = entry(`Archived pattern about ${TOPICS[i]} in the upstream client ${i}.`, `archived: ${OLD}\narchivedReason: decayed\n`);
  files["knowledge/archive/a-00.md"] = entry(RECURRING, `archived: ${OLD}\narchivedReason: decayed\n`, "src/client.ts:1-3, resolveHost() — answers cached forever.");
  files["knowledge/f-00.md"] = entry("Queue drains skip the shutdown signal and lose the last batch.", "", `${DRIFTED}, drainQueue() — no shutdown check.`);
  for (let i = 0; i < 10; i++) files[`knowledge/c-${pad(i)}.md`] = entry(`Current pattern about ${TOPICS[i]} handling in request ${i}.`);
  const lines = [1, 2, 3].map((run, i) =>
    JSON.stringify({ v: 1, eventId: `01KA0000000000000000000R${run}0`.slice(0, 26), time: `2026-01-0${2 + i}T10:00:00.000Z`, type: "injected", run: `old-${run}`, agent: "security", entries: Array.from({ length: DECAYING }, (_, j) => `d-${pad(j)}`) }),
  );
  files["knowledge/.ledger/2026-01.jsonl"] = lines.join("\n") + "\n";
  return files;
}

/** f-00's anchor before `check --fix`, and after. */
const DRIFTED = "src/drift.ts:1-3";
const FIXED = "src/drift.ts:5-7";

export type Scenario = { name: string; args: string[]; input?: string; next?: string[]; prepare?: (root: string) => Promise<void> };

const findings = JSON.stringify({ findings: [5, 6, 7, 8, 9].map((i) => ({ agent: "security", text: `Current pattern about ${TOPICS[i]}`, entry: `c-${pad(i)}` })) });
/** The archived entry a-00's finding: compound's last candidate recurs it (a restore). */
const RECURRING = "The upstream client caches DNS answers forever and never re-resolves a moved host.";

/** Three new patterns (created) and a recurrence of a-00 (restored), each with words and an anchor of its own. */
const synthesized = JSON.stringify({
  findings: [
    { text: "Queue consumers reset the retry budget whenever a message is redelivered.", evidence: ["src/queue.ts:1, consumeA()"] },
    { text: "Batch uploads acknowledge the whole batch after a partial failure.", evidence: ["src/queue.ts:2, consumeB()"] },
    { text: "Scheduled jobs compute cron offsets in local time and skip the DST hour.", evidence: ["src/queue.ts:3, consumeC()"] },
    { text: RECURRING, evidence: ["src/client.ts:1-3, resolveHost()"] },
  ].map((f) => ({ ...f, agents: ["security", "performance"], verify: ["grep for consume in src/"], durable: true })),
});

/** The twelve mutating commands (issue 8's list) and `check --fix`, each with the command that follows it. */
export const SCENARIOS: Scenario[] = [
  { name: "confirm", args: ["confirm", "c-00"] },
  { name: "retract", args: ["retract", "c-01"] },
  { name: "restore", args: ["restore", "a-01"] },
  { name: "decay (archive)", args: ["decay"] },
  { name: "supersede", args: ["supersede", "c-02", "c-03"] },
  { name: "set-status", args: ["set-status", "c-04", "verified"] },
  { name: "record", args: ["record", "--run", "run-x", "--findings", "-"], input: findings },
  { name: "compound", args: ["compound", "--run", "run-x", "--findings", "-"], input: synthesized },
  { name: "inject", args: ["inject", "--run", "run-y", "--agent", "security", "--keywords", "retries,timeouts,sessions"], next: ["inject", "--run", "run-z", "--agent", "security", "--keywords", "retries"] },
  { name: "new", args: ["new", "n-new", "--finding", "New pattern: handlers drop deadlines.", "--evidence", "src/auth.ts:1-2, handleRequest()", "--verify", "grep deadline src/"] },
  { name: "index", args: ["index"], next: ["index"] },
  { name: "check --fix", args: ["check", "--fix"] },
  {
    name: "init",
    args: ["init"],
    next: ["init"],
    prepare: async (root) => {
      await rm(path.join(root, ".gitattributes"));
      await rm(path.join(root, ".gitignore"));
      await rm(path.join(root, "knowledge/archive/.gitkeep"));
    },
  },
];

export type Trial = { scenario: string; kill: KillAt; killed: boolean; repaired: boolean; nextMs: number; problems: string[] };

/** Write the template into `dir` (made once; each trial copies it). */
export async function writeTemplate(dir: string): Promise<void> {
  for (const [rel, text] of Object.entries(templateFiles())) {
    await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await writeFile(path.join(dir, rel), text);
  }
}

type Run = { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string; ms: number };

type Child = ReturnType<typeof spawn>;

/** Kill `target` with SIGKILL as `kill` says (after a delay, or a delay after the first pending-change log appears); `fired` says whether it did. */
function killWhen(root: string, target: Child, kill: KillAt | undefined): { cancel: () => void; fired: () => boolean } {
  let timer: NodeJS.Timeout | undefined;
  let fired = false;
  const fire = () => {
    fired = true;
    target.kill("SIGKILL");
  };
  if (kill && "afterMs" in kill) timer = setTimeout(fire, kill.afterMs);
  if (kill && "afterLogMs" in kill) {
    const pending = path.join(root, "knowledge/.pending");
    timer = setInterval(() => {
      let logged = false;
      try {
        logged = readdirSync(pending).some((name) => name.endsWith(".json"));
      } catch {
        // not created yet
      }
      if (!logged) return;
      clearInterval(timer);
      timer = setTimeout(fire, kill.afterLogMs);
    }, 1);
  }
  return {
    cancel: () => {
      clearInterval(timer);
      clearTimeout(timer);
    },
    fired: () => fired,
  };
}

/** When to kill: after a delay, or `delayMs` after the first pending-change log appears in knowledge/.pending/ (mid-change). */
export type KillAt = { afterMs: number } | { afterLogMs: number };

/** Run a command; `kill` kills it, or (`target`) another process: the watcher that runs it. `fired`: the kill was sent while the command ran. */
function runCairn(cli: string, root: string, args: string[], input: string | undefined, kill?: KillAt, target?: Child, env: NodeJS.ProcessEnv = {}): Promise<Run & { fired: boolean }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, [cli, "--root", root, ...args], { cwd: root, stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, NO_COLOR: "1", ...env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.stdin.on("error", () => undefined);
    child.stdin.end(input ?? "");
    const killer = killWhen(root, target ?? child, kill);
    child.on("close", (code, signal) => {
      killer.cancel();
      resolve({ code, signal, stdout, stderr, ms: Date.now() - started, fired: killer.fired() });
    });
  });
}

/** Start `cairn watch` in `root` and wait until it serves other commands. */
async function startWatch(cli: string, root: string): Promise<{ child: Child; log: () => string }> {
  const child = spawn(process.execPath, [cli, "--root", root, "watch"], { cwd: root, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NO_COLOR: "1" } });
  let out = "";
  child.stdout!.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (out += c.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => (child.kill("SIGKILL"), reject(new Error(`cairn watch did not start serving:\n${out}`))), 30_000);
    child.stdout!.on("data", () => /other cairn commands of this repository run here/.test(out) && (clearTimeout(timer), resolve()));
    child.once("exit", (code) => (clearTimeout(timer), reject(new Error(`cairn watch exited with ${code}:\n${out}`))));
  });
  return { child, log: () => out };
}

export type ServedTrial = Trial & { client: { code: number | null; stderr: string }; served: boolean };

/**
 * One trial of a command served by `cairn watch`, the watcher killed as `kill` says (the command runs in it). The
 * client must not run the command again itself; the next command, in its own process, repairs as after any crash.
 */
export async function servedTrial(template: string, work: string, scenario: Scenario, kill: KillAt, cli = CLI): Promise<ServedTrial> {
  const root = await fresh(template, work, scenario);
  const before = await snapshot(root);
  await runCairn(cli, root, ["index"], undefined);
  const watcher = await startWatch(cli, root);
  const exited = new Promise<NodeJS.Signals | null>((resolve) => watcher.child.once("exit", (_code, signal) => resolve(signal)));
  const client = await runCairn(cli, root, scenario.args, scenario.input, kill, watcher.child, { CAIRN_USE_WATCH: "require" });
  // Not killed while the command ran (it finished first): stopped now, the trial then shows no kill.
  if (watcher.child.exitCode === null && watcher.child.signalCode === null) watcher.child.kill("SIGKILL");
  await exited;
  const next = await runCairn(cli, root, scenario.next ?? ["confirm", "stable"], undefined, undefined, undefined, { CAIRN_USE_WATCH: "0" });
  const problems = next.code === 0 ? [] : [`the next command (${(scenario.next ?? ["confirm"]).join(" ")}) exited ${next.code}: ${next.stderr.trim()}`];
  problems.push(...(await invariants(root, before, scenario)));
  await rm(root, { recursive: true, force: true });
  const served = /ran cairn \S+ for another process/.test(watcher.log()) || /stopped while it ran the command/.test(client.stderr);
  return { scenario: scenario.name, kill, killed: client.fired, repaired: /finished the change of/.test(next.stderr), nextMs: next.ms, problems, client: { code: client.code, stderr: client.stderr }, served };
}

/** How long `scenario` takes when it is not killed (ms), on a fresh copy of the template. */
export async function measure(template: string, work: string, scenario: Scenario, cli = CLI): Promise<number> {
  const root = await fresh(template, work, scenario);
  const run = await runCairn(cli, root, scenario.args, scenario.input);
  if (run.code !== 0) throw new Error(`${scenario.name} failed unkilled (exit ${run.code}): ${run.stderr}`);
  await rm(root, { recursive: true, force: true });
  return run.ms;
}

/** One trial: copy the template, kill the command as `kill` says, run the next command, check the invariants. `cli`: the cairn build to run (default this one). */
export async function trial(template: string, work: string, scenario: Scenario, kill: KillAt, cli = CLI): Promise<Trial> {
  const root = await fresh(template, work, scenario);
  const before = await snapshot(root);
  const killed = await runCairn(cli, root, scenario.args, scenario.input, kill);
  const next = await runCairn(cli, root, scenario.next ?? ["confirm", "stable"], undefined);
  const problems = next.code === 0 ? [] : [`the next command (${(scenario.next ?? ["confirm"]).join(" ")}) exited ${next.code}: ${next.stderr.trim()}`];
  problems.push(...(await invariants(root, before, scenario)));
  await rm(root, { recursive: true, force: true });
  return { scenario: scenario.name, kill, killed: killed.signal === "SIGKILL", repaired: /finished the change of/.test(next.stderr), nextMs: next.ms, problems };
}

let counter = 0;
async function fresh(template: string, work: string, scenario: Scenario): Promise<string> {
  const root = path.join(work, `t-${process.pid}-${counter++}`);
  await cp(template, root, { recursive: true });
  await scenario.prepare?.(root);
  return root;
}

type Snapshot = Map<string, "active" | "archived">;

async function snapshot(root: string): Promise<Snapshot> {
  const out: Snapshot = new Map();
  for (const [dir, state] of [["knowledge", "active"], ["knowledge/archive", "archived"]] as const) {
    for (const name of await readdir(path.join(root, dir)).catch(() => [] as string[])) if (name.endsWith(".md")) out.set(name.slice(0, -3), state);
  }
  return out;
}

async function invariants(root: string, before: Snapshot, scenario: Scenario): Promise<string[]> {
  const problems: string[] = [];
  const now = new Map<string, { state: "active" | "archived"; fm: Record<string, unknown> }>();
  for (const [dir, state] of [["knowledge", "active"], ["knowledge/archive", "archived"]] as const) {
    for (const name of await readdir(path.join(root, dir)).catch(() => [] as string[])) {
      if (!name.endsWith(".md")) continue;
      const rel = `${dir}/${name}`;
      const parsed = parseEntry(await readFile(path.join(root, rel)), { file: rel, state });
      const errors = parsed.diagnostics.filter((d) => d.severity === "error");
      if (!parsed.entry || errors.length) problems.push(`${rel} does not parse: ${errors.map((d) => d.message).join("; ")}`);
      const id = name.slice(0, -3);
      if (now.has(id)) problems.push(`${id} is in both knowledge/ and knowledge/archive/`);
      now.set(id, { state, fm: parsed.entry?.frontmatter ?? {} });
    }
  }
  // The ledger: only valid lines (a torn line left by a crash is tolerated by design).
  const events: Array<Record<string, unknown>> = [];
  for (const name of (await readdir(path.join(root, "knowledge/.ledger")).catch(() => [] as string[])).filter((n) => n.endsWith(".jsonl")).sort()) {
    const parsed = parseLedgerText(await readFile(path.join(root, "knowledge/.ledger", name), "utf8"), name);
    for (const w of parsed.warnings) if (w.rule !== "ledger-torn-line") problems.push(`ledger ${name}:${w.line}: ${w.message}`);
    events.push(...(parsed.events as unknown as Array<Record<string, unknown>>));
  }
  events.sort((a, b) => String(a.time).localeCompare(String(b.time)) || String(a.eventId).localeCompare(String(b.eventId)));
  const unique = events.filter((e, i) => events.findIndex((o) => o.eventId === e.eventId) === i);
  // Where the events say each entry of the template is.
  const expected = new Map<string, "active" | "archived" | "retracted">(before);
  const superseded = new Set<string>();
  const confirmedByHand = new Set<string>();
  const anchorsFixed = new Set<string>();
  for (const e of unique) {
    const id = String(e.entry);
    if (e.type === "archived") expected.set(id, "archived");
    else if (e.type === "restored") expected.set(id, "active");
    else if (e.type === "retracted") expected.set(id, "retracted");
    else if (e.type === "superseded") superseded.add(id);
    else if (e.type === "manual-confirmed") confirmedByHand.add(id);
    else if (e.type === "anchors-fixed") anchorsFixed.add(id);
  }
  for (const [id, state] of expected) {
    if (!before.has(id)) continue; // created by new/compound: not part of the template
    const found = now.get(id);
    if (state === "retracted") {
      if (found) problems.push(`${id} has a retracted event but its file is still in ${found.state === "active" ? "knowledge/" : "knowledge/archive/"}`);
      continue;
    }
    if (!found) {
      problems.push(`${id} was lost: no file, and no retracted event`);
      continue;
    }
    if (found.state !== state) problems.push(`${id} is ${found.state} but its events say ${state}`);
    if ((found.state === "archived") !== (found.fm.archived !== undefined)) problems.push(`${id} is ${found.state} but its frontmatter ${found.fm.archived === undefined ? "lacks" : "has"} \`archived\``);
    if ((found.fm.status === "superseded") !== superseded.has(id)) problems.push(`${id}: status ${String(found.fm.status ?? "observed")} but ${superseded.has(id) ? "a" : "no"} superseded event`);
    if (id === "c-00" && (found.fm.lastConfirmed === TODAY) !== confirmedByHand.has(id)) problems.push(`c-00: lastConfirmed ${String(found.fm.lastConfirmed)} but ${confirmedByHand.has(id) ? "a" : "no"} manual-confirmed event`);
  }
  const drift = await readFile(path.join(root, "knowledge/f-00.md"), "utf8").catch(() => "");
  if (drift.includes(FIXED) !== anchorsFixed.has("f-00") || drift.includes(DRIFTED) === drift.includes(FIXED)) {
    problems.push(`f-00 cites ${drift.includes(FIXED) ? FIXED : DRIFTED} but ${anchorsFixed.has("f-00") ? "an" : "no"} anchors-fixed event`);
  }
  for (const id of now.keys()) if (!before.has(id) && expected.get(id) === "archived") problems.push(`${id} appeared but was archived`);
  const pending = (await readdir(path.join(root, "knowledge/.pending")).catch(() => [] as string[])).filter((n) => n.endsWith(".json"));
  if (pending.length) problems.push(`changes left pending after the next command: ${pending.join(", ")}`);
  if (scenario.name === "init") {
    const attributes = await readFile(path.join(root, ".gitattributes"), "utf8").catch(() => "");
    const ignore = await readFile(path.join(root, ".gitignore"), "utf8").catch(() => "");
    if (attributes.split("\n").filter((l) => l === "knowledge/.ledger/*.jsonl merge=union").length !== 1) problems.push(`.gitattributes after init: ${JSON.stringify(attributes)}`);
    if (ignore.split("\n").filter((l) => l === ".cairn/").length !== 1) problems.push(`.gitignore after init: ${JSON.stringify(ignore)}`);
  }
  return problems;
}

function pad(i: number): string {
  return String(i).padStart(2, "0");
}
