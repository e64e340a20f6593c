/**
 * What cairn's types cost a consumer (issue 11 item 6): `tsc --noEmit` on a ~60-line script that uses
 * cairn's public API and types, in a consumer project where cairn is an installed package (a symlink to
 * a built package, as `npm install file:…` makes), with the compiler's defaults (skipLibCheck off, so
 * every declaration file it reads is checked). Each run is a cold `tsc` process. Same-run baseline: a
 * script of the same size importing only `node:fs`. Goal: ≤ 1.3× the baseline.
 *
 * Three variants alternate in every run (order rotated): the baseline, this build ("after"), and the
 * build of the base commit ("before": by default the merge base with `main`, built into a temp dir;
 * `--base DIR` gives a built package directory instead, `--base none` skips it). The before script
 * names the types the way users had to (`Parameters<KnowledgeBase["inject"]>[0]`); the after script
 * imports them; the bodies are the same.
 *
 * Run: npm run bench -- types [--quick] [--base DIR|none]
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { benchArgs, log } from "./lib/args.js";
import { runProcess } from "./lib/process.js";
import { fmt, goalTable, table, writeResults, type GoalRow } from "./lib/report.js";
import { median } from "./lib/stats.js";

const { quick } = benchArgs();
const RUNS = quick ? 2 : 7;
const GOAL_RATIO = 1.3;
const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const TSC = path.join(REPO, "node_modules", "typescript", "bin", "tsc");

type Variant = "baseline" | "before" | "after";
type Sample = { ms: number; cpuMs: number | undefined };

/** The part of the consumer script every cairn variant shares: an orchestrator's review loop, typed. */
const BODY = `
const config: Partial<CairnConfig> = { maxPerAgent: 3, holdout: "off" };
const kb: KnowledgeBase = await openKnowledgeBase({ root: process.cwd(), config });

async function contextFor(agent: string, keywords: string[], summary: string): Promise<InjectResult> {
  const input: InjectInput = { run: "pr-42", agent, keywords, summary, changedFiles: ["src/auth.ts"], dryRun: true };
  const result = await kb.inject(input);
  for (const warning of result.warnings) console.warn(\`\${agent}: \${warning}\`);
  return result;
}

const agents: Array<[string, string[]]> = [["security", ["auth", "token"]], ["performance", ["latency"]]];
const contexts = await Promise.all(agents.map(([agent, keywords]) => contextFor(agent, keywords, "Adds retries to the auth client")));
const prompt = contexts.map((c) => \`\${c.agent}: \${c.tokens} tokens\\n\${c.markdown}\`).join("\\n\\n");

const findings: Finding[] = contexts.flatMap((c) => c.entries.map((e) => ({ agent: c.agent, text: e.finding, entry: e.id })));
const recorded: RecordResult = await kb.recordFindings("pr-42", findings, { dryRun: true });
const independent = recorded.confirmations.filter((c) => c.provenance === "independent").map((c) => c.entry);

const candidates: CompoundFinding[] = recorded.unmatched.map((u) => ({
  text: u.text,
  agents: [u.agent, "correctness"],
  evidence: ["src/auth.ts:10-20"],
  verify: ["grep for \`retry(\` in src/"],
  durable: true,
}));
const compounded: CompoundResult = await kb.compound("pr-42", candidates, { dryRun: true });

const found: SearchResponse = await kb.search("retry storms", { limit: 5 });
const ranked = found.results.map((r) => \`\${r.id} (\${r.score.toFixed(3)}, \${r.state})\`);
const withArchive: SearchResponse = await kb.search("retry storms", { includeArchived: true, limit: 3 });
console.log(ranked, withArchive.mode, withArchive.warnings);
const status: StatusReport = await kb.status();
const nearDecay = status.entries.filter((row) => row.unconfirmedRuns >= row.decayAfterRuns - 2).map((row) => row.id);

const verified = await kb.verify({ dryRun: true });
const failed = "kind" in verified ? [] : verified.entries.filter((row) => row.result === "failed").map((row) => row.id);
const report: VerifyReport | undefined = "kind" in verified ? undefined : verified;

try {
  const shown = await kb.show(found.results[0]?.id ?? "none");
  if (shown.kind === "found") console.log(shown.entry.title ?? shown.entry.id, shown.entry.status.warnings.join("; "));
} catch (error) {
  if (!isCairnError(error)) throw error;
  console.error(\`\${error.code}: \${error.message}\`);
}

const checked = await kb.check({ anchors: false });
const errors = checked.diagnostics.filter((d) => d.severity === "error").map((d) => \`\${d.file}:\${d.line} \${d.rule}\`);
const history = await kb.history(independent[0] ?? "none");
const events = "kind" in history ? 0 : history.items.filter((item) => item.source === "ledger").length;
const changes = await kb.diff("HEAD");
const touched = [...changes.added, ...changes.edited].map((entry) => \`\${entry.id} (\${entry.kinds.join(", ")})\`);
const decayed = await kb.decay({ dryRun: true });
const due = decayed.archived.map((candidate) => \`\${candidate.id}: \${candidate.reason}\`);

console.log(prompt.length, independent, compounded.created, nearDecay, failed, report?.passed);
console.log(errors, events, touched, due);
`;

/** Header of the after script: the types are imported by name. */
const AFTER = `import { isCairnError, openKnowledgeBase, type CairnConfig, type CompoundFinding, type CompoundResult, type Finding, type InjectInput, type InjectResult, type KnowledgeBase } from "cairn";
import type { RecordResult, SearchResponse, StatusReport, VerifyReport } from "cairn";
`;

/** Header of the before script: what users wrote while the inputs and results were not exported. */
const BEFORE = `import { isCairnError, openKnowledgeBase, type CairnConfig, type KnowledgeBase, type SearchResponse, type StatusReport, type VerifyReport } from "cairn";
type InjectInput = Parameters<KnowledgeBase["inject"]>[0];
type InjectResult = Awaited<ReturnType<KnowledgeBase["inject"]>>;
type Finding = Parameters<KnowledgeBase["recordFindings"]>[1][number];
type RecordResult = Awaited<ReturnType<KnowledgeBase["recordFindings"]>>;
type CompoundFinding = Parameters<KnowledgeBase["compound"]>[1][number];
type CompoundResult = Awaited<ReturnType<KnowledgeBase["compound"]>>;
`;

/** The baseline: a script of the same size and shape importing only node:fs. */
const BASELINE = `import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, type Dirent, type Stats } from "node:fs";

type Note = { file: string; size: number; lines: number; words: string[] };
type Summary = { notes: Note[]; largest: Note | undefined; total: number };

const root: string = mkdtempSync("/tmp/notes-");

function write(name: string, lines: string[]): string {
  const file = \`\${root}/\${name}.md\`;
  writeFileSync(file, lines.join("\\n") + "\\n");
  return file;
}

async function noteOf(file: string): Promise<Note> {
  const text = readFileSync(file, "utf8");
  const info: Stats = statSync(file);
  const words = text.split(/\\s+/).filter((w) => w.length > 3);
  return { file, size: info.size, lines: text.split("\\n").length, words };
}

const names: Array<[string, string[]]> = [["security", ["auth", "token"]], ["performance", ["latency"]]];
const files = names.map(([name, words]) => write(name, words.map((w) => \`\${name} notes about \${w}\`)));
const notes = await Promise.all(files.map((file) => noteOf(file)));
const digest = notes.map((n) => \`\${n.file}: \${n.size} bytes\\n\${n.words.join(" ")}\`).join("\\n\\n");

const entries: Dirent[] = readdirSync(root, { withFileTypes: true });
const markdown = entries.filter((e) => e.isFile() && e.name.endsWith(".md")).map((e) => e.name);
const largest = notes.reduce<Note | undefined>((best, n) => (!best || n.size > best.size ? n : best), undefined);

const summary: Summary = {
  notes,
  largest,
  total: notes.reduce((sum, n) => sum + n.size, 0),
};

const counts = new Map<string, number>();
for (const note of notes) for (const word of note.words) counts.set(word, (counts.get(word) ?? 0) + 1);
const frequent = [...counts].filter(([, n]) => n > 1).map(([word]) => word);

const sizes = notes.map((n) => n.size).sort((a, b) => a - b);
const middle = sizes[Math.floor(sizes.length / 2)];
const empty = notes.filter((n) => n.words.length === 0).map((n) => n.file);
const exists: boolean = existsSync(\`\${root}/security.md\`);

try {
  const text = readFileSync(\`\${root}/missing.md\`, "utf8");
  console.log(text.length);
} catch (error) {
  if (!(error instanceof Error)) throw error;
  console.error(\`\${(error as NodeJS.ErrnoException).code}: \${error.message}\`);
}

const words = notes.flatMap((n) => n.words).map((w) => w.toLowerCase());
const unique = new Set(words);
const again = readdirSync(root).filter((name) => statSync(\`\${root}/\${name}\`).size > 0);
writeFileSync(\`\${root}/index.md\`, again.map((name) => \`- \${name}\`).join("\\n") + "\\n");
const index = readFileSync(\`\${root}/index.md\`, "utf8").split("\\n").filter(Boolean);

rmSync(root, { recursive: true, force: true });
console.log(digest.length, markdown, summary.total, frequent, middle, empty, exists);
console.log(unique.size, again, index);
`;

const TSCONFIG = {
  compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, noEmit: true, types: ["node"] },
  files: ["review.ts"],
};

/** A consumer project: its script, tsconfig, @types/node, and cairn installed as a link to `pkg` (none for the baseline). */
async function consumer(dir: string, script: string, pkg: string | undefined): Promise<void> {
  await mkdir(path.join(dir, "node_modules", "@types"), { recursive: true });
  await writeFile(path.join(dir, "package.json"), `${JSON.stringify({ name: "consumer", private: true, type: "module" }, null, 2)}\n`);
  await writeFile(path.join(dir, "tsconfig.json"), `${JSON.stringify(TSCONFIG, null, 2)}\n`);
  await writeFile(path.join(dir, "review.ts"), script);
  await symlink(path.join(REPO, "node_modules", "@types", "node"), path.join(dir, "node_modules", "@types", "node"), "dir");
  if (pkg) await symlink(pkg, path.join(dir, "node_modules", "cairn"), "dir");
}

/** Build the base commit's package into a temp dir (its own dist/, this checkout's node_modules). */
function buildBase(rev: string, dir: string): void {
  execFileSync("sh", ["-c", `git archive ${rev} | tar -x -C "${dir}"`], { cwd: REPO });
  execFileSync("ln", ["-s", path.join(REPO, "node_modules"), path.join(dir, "node_modules")]);
  execFileSync(process.execPath, [TSC, "-p", "tsconfig.build.json"], { cwd: dir, stdio: "inherit" });
}

function baseRevision(): string | undefined {
  const at = process.argv.indexOf("--base");
  if (at >= 0) return process.argv[at + 1];
  try {
    const base = execFileSync("git", ["merge-base", "HEAD", "main"], { cwd: REPO, encoding: "utf8" }).trim();
    const head = execFileSync("git", ["rev-parse", "HEAD"], { cwd: REPO, encoding: "utf8" }).trim();
    return base && base !== head ? base : undefined;
  } catch {
    return undefined;
  }
}

async function compile(dir: string): Promise<Sample & { code: number | null; output: string }> {
  const timer = existsSync("/usr/bin/time") ? ["/usr/bin/time", "-f", "cpu %U %S"] : [];
  const [command, ...args] = [...timer, process.execPath, TSC, "-p", dir];
  const run = await runProcess(command!, args);
  const cpu = /cpu ([\d.]+) ([\d.]+)/.exec(run.stderr);
  return { ms: run.ms, cpuMs: cpu ? (Number(cpu[1]) + Number(cpu[2])) * 1000 : undefined, code: run.code, output: `${run.stdout}${run.stderr.replace(/^cpu .*$/m, "")}`.trim() };
}

/** Files tsc reads for the consumer in `dir`. */
function filesRead(dir: string): string[] {
  return execFileSync(process.execPath, [TSC, "-p", dir, "--listFilesOnly"], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 }).split("\n").filter(Boolean);
}

async function main(): Promise<void> {
  const work = await mkdtemp(path.join(os.tmpdir(), "cairn-bench-types-"));
  try {
    const base = baseRevision();
    let basePackage: string | undefined;
    let baseLabel = "";
    if (base && base !== "none") {
      baseLabel = existsSync(base) ? path.basename(path.resolve(base)) : base.slice(0, 12);
      if (existsSync(path.join(base, "dist", "index.d.ts"))) basePackage = path.resolve(base);
      else {
        basePackage = path.join(work, "base");
        await mkdir(basePackage);
        log(`building the base commit ${base.slice(0, 12)} into ${basePackage}`);
        buildBase(base, basePackage);
      }
    } else log("no base build (on main itself, or --base none): only this build and the baseline are measured");
    const dirs: Partial<Record<Variant, string>> = {};
    const setup = async (variant: Variant, script: string, pkg: string | undefined) => {
      dirs[variant] = path.join(work, variant);
      await consumer(dirs[variant]!, script, pkg);
    };
    await setup("baseline", BASELINE, undefined);
    await setup("after", AFTER + BODY, REPO);
    if (basePackage) await setup("before", BEFORE + BODY, basePackage);
    const variants = (["baseline", "before", "after"] as const).filter((v) => dirs[v]);
    const lines = (text: string) => text.trim().split("\n").length;
    log(`scripts: baseline ${lines(BASELINE)} lines, cairn ${lines(AFTER + BODY)} (after) / ${lines(BEFORE + BODY)} (before) lines`);

    // Every script must compile (a failing compile would time an error path), once untimed (warms the file cache).
    for (const variant of variants) {
      const first = await compile(dirs[variant]!);
      if (first.code !== 0) throw new Error(`tsc failed on the ${variant} consumer:\n${first.output}`);
    }
    const samples: Record<Variant, Sample[]> = { baseline: [], before: [], after: [] };
    for (let run = 0; run < RUNS; run++) {
      const order = variants.map((_, i) => variants[(i + run) % variants.length]!);
      for (const variant of order) samples[variant].push(await compile(dirs[variant]!));
      log(`run ${run + 1}/${RUNS}: ${variants.map((v) => `${v} ${fmt(samples[v][run]!.ms)} ms`).join(", ")}`);
    }

    const baselineFiles = new Set(filesRead(dirs.baseline!));
    const stat = (variant: Variant) => {
      const ms = samples[variant].map((s) => s.ms);
      const cpu = samples[variant].flatMap((s) => (s.cpuMs === undefined ? [] : [s.cpuMs]));
      const files = filesRead(dirs[variant]!);
      // Packages' declaration files beyond what the baseline reads (the ES and DOM libraries, @types/node and its undici-types).
      const fromPackages = files.filter((f) => f.includes("/node_modules/") && !baselineFiles.has(f));
      return { ms: median(ms), min: Math.min(...ms), max: Math.max(...ms), cpu: cpu.length ? median(cpu) : undefined, files: { total: files.length, fromPackages: fromPackages.length, zod: fromPackages.filter((f) => f.includes("/node_modules/zod/")).length } };
    };
    const stats = Object.fromEntries(variants.map((v) => [v, stat(v)])) as Partial<Record<Variant, ReturnType<typeof stat>>>;
    const baseline = stats.baseline!;
    const after = stats.after!;
    const before = stats.before;
    const load = os.loadavg()[0]!;
    const cpuRatio = (s: ReturnType<typeof stat>) => (s.cpu !== undefined && baseline.cpu !== undefined ? `; CPU ${fmt(s.cpu / baseline.cpu)}×` : "");
    const goals: GoalRow[] = [
      {
        metric: `consumer \`tsc --noEmit\` (skipLibCheck off) on a ${lines(AFTER + BODY)}-line script using cairn's API and types, cold, wall`,
        goal: `≤ ${GOAL_RATIO}× the same-size script importing only \`node:fs\``,
        measured: `${fmt(after.ms)} ms (median of ${RUNS}, load average ${fmt(load)} on ${os.cpus().length} cores): ${fmt(after.ms / baseline.ms)}×${cpuRatio(after)}`,
        baseline: `\`node:fs\` script ${fmt(baseline.ms)} ms${before ? `; before (${baseLabel}): ${fmt(before.ms)} ms, ${fmt(before.ms / baseline.ms)}×${cpuRatio(before)}` : ""}`,
        pass: quick ? null : after.ms / baseline.ms <= GOAL_RATIO,
      },
      {
        metric: "declaration files of other packages the consumer's tsc reads through cairn (zod, …)",
        goal: "0",
        measured: String(after.files.fromPackages),
        baseline: before ? `before: ${before.files.fromPackages} (zod: ${before.files.zod})` : "",
        pass: after.files.fromPackages === 0,
      },
    ];
    const row = (variant: Variant, what: string) => {
      const s = stats[variant]!;
      return {
        consumer: what,
        "median wall": `${fmt(s.ms)} ms`,
        "fastest – slowest": `${fmt(s.min)} – ${fmt(s.max)} ms`,
        "median CPU": s.cpu === undefined ? "" : `${fmt(s.cpu)} ms`,
        "× baseline": fmt(s.ms / baseline.ms),
        "files tsc reads": s.files.total,
        "of them from cairn's dependencies": variant === "baseline" ? "—" : s.files.fromPackages,
      };
    };
    const rows = [
      row("baseline", "baseline: the same-size script importing only `node:fs`"),
      ...(before ? [row("before", `before (${baseLabel}): types via \`Parameters<…>\`, zod reached`)] : []),
      row("after", "after: types imported by name"),
    ];
    console.log(`\n## consumer type-check\n\n${goalTable(goals)}\n\n${table(rows)}`);
    const out = await writeResults("types", goals, { quick, runs: RUNS, base: base ?? null, samples, tables: { consumers: rows } });
    console.log(`\nwrote ${path.relative(REPO, out)}`);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

await main();
