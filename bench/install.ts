/**
 * Install benchmark (issue 11 item 8): `npm ci` time and `node_modules` size with transformers.js as a
 * hard dependency (before: the package.json and lock where this branch started) and as an optional
 * peer dependency (after: the working tree's), in the same run, alternating, several runs each.
 *
 *   production   npm ci --omit=dev: what a project depending on cairn installs
 *   development  npm ci: this repository's own install (tests need transformers.js, so it stays a dev dependency)
 *
 * Both use --ignore-scripts (the native HNSW build costs the same on both sides and is not what moved)
 * and --prefer-offline with the local npm cache, so the figures are extraction and linking, not network.
 * Run: `npm run bench -- install` (`--quick`: one run each).
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { lstat, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { benchArgs, log } from "./lib/args.js";
import { runProcess } from "./lib/process.js";
import { fmt, writeResults, type GoalRow } from "./lib/report.js";
import { median } from "./lib/stats.js";

const REPO = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
const RUNS = benchArgs().quick ? 1 : 5;
const PACKAGE = "@huggingface/transformers";

type Variant = "before" | "after";
type Mode = "production" | "development";
type Sample = { ms: number; bytes: number; packages: number; transformers: boolean };

/** package.json and package-lock.json of a variant: `before` from the commit this branch forked from main. */
function manifests(variant: Variant): { pkg: string; lock: string; from: string } {
  const git = (...args: string[]) => execFileSync("git", args, { cwd: REPO, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
  if (variant === "after") return { pkg: readFileSync(path.join(REPO, "package.json"), "utf8"), lock: readFileSync(path.join(REPO, "package-lock.json"), "utf8"), from: "working tree" };
  // The newest commit whose package.json still lists transformers.js among the dependencies.
  const commit = git("log", "--format=%H", "-S", `"${PACKAGE}"`, "--", "package.json")
    .split("\n")
    .filter(Boolean)
    .find((c) => (JSON.parse(git("show", `${c}:package.json`)) as { dependencies?: Record<string, string> }).dependencies?.[PACKAGE]);
  if (!commit) throw new Error(`no commit has ${PACKAGE} in dependencies`);
  return { pkg: git("show", `${commit}:package.json`), lock: git("show", `${commit}:package-lock.json`), from: commit.slice(0, 12) };
}

/** Bytes on disk (allocated blocks) under `dir`, not following links. */
async function diskBytes(dir: string): Promise<number> {
  let total = 0;
  const walk = async (d: string): Promise<void> => {
    for (const item of await readdir(d, { withFileTypes: true })) {
      const p = path.join(d, item.name);
      const info = await lstat(p);
      total += info.blocks * 512;
      if (item.isDirectory()) await walk(p);
    }
  };
  await walk(dir);
  return total;
}

async function install(variant: Variant, mode: Mode, files: { pkg: string; lock: string }): Promise<Sample> {
  const dir = await mkdtemp(path.join(os.tmpdir(), `cairn-install-${variant}-`));
  try {
    await writeFile(path.join(dir, "package.json"), files.pkg);
    await writeFile(path.join(dir, "package-lock.json"), files.lock);
    await writeFile(path.join(dir, ".npmrc"), "onnxruntime-node-install-cuda=skip\n");
    const args = ["ci", "--ignore-scripts", "--prefer-offline", "--no-audit", "--no-fund", ...(mode === "production" ? ["--omit=dev"] : [])];
    const run = await runProcess("npm", args, { cwd: dir });
    if (run.code !== 0) throw new Error(`npm ${args.join(" ")} failed (${variant}):\n${run.stderr.slice(-2000)}`);
    const nodeModules = path.join(dir, "node_modules");
    const top = await readdir(nodeModules);
    let packages = 0;
    for (const name of top) packages += name.startsWith("@") ? (await readdir(path.join(nodeModules, name))).length : name.startsWith(".") ? 0 : 1;
    const transformers = await lstat(path.join(nodeModules, PACKAGE)).then(() => true, () => false);
    return { ms: run.ms, bytes: await diskBytes(nodeModules), packages, transformers };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const files = { before: manifests("before"), after: manifests("after") };
  const samples = new Map<string, Sample[]>();
  for (const mode of ["production", "development"] as const) {
    // Warm the npm cache for both lock files once (not timed), then alternate the order per run.
    for (const variant of ["before", "after"] as const) await install(variant, mode, files[variant]);
    for (let i = 0; i < RUNS; i++) {
      const order: Variant[] = i % 2 === 0 ? ["before", "after"] : ["after", "before"];
      for (const variant of order) {
        const sample = await install(variant, mode, files[variant]);
        log(`${mode} ${variant} run ${i + 1}/${RUNS}: ${fmt(sample.ms / 1000, 1)} s, ${fmt(sample.bytes / 1e6)} MB, ${sample.packages} packages`);
        samples.set(`${mode}:${variant}`, [...(samples.get(`${mode}:${variant}`) ?? []), sample]);
      }
    }
  }
  const stat = (mode: Mode, variant: Variant) => {
    const list = samples.get(`${mode}:${variant}`)!;
    const seconds = list.map((s) => s.ms / 1000);
    return { seconds: median(seconds), min: Math.min(...seconds), max: Math.max(...seconds), mb: median(list.map((s) => s.bytes)) / 1e6, packages: list[0]!.packages, transformers: list[0]!.transformers };
  };
  const rows = (["production", "development"] as const).flatMap((mode) =>
    (["before", "after"] as const).map((variant) => {
      const s = stat(mode, variant);
      return {
        install: mode === "production" ? "`npm ci --omit=dev` (a project using cairn)" : "`npm ci` (this repository, with tests)",
        "transformers.js": variant === "before" ? "dependency (before)" : "optional peer (after)",
        "median time": `${fmt(s.seconds, 1)} s`,
        "fastest – slowest": `${fmt(s.min, 1)} – ${fmt(s.max, 1)} s`,
        node_modules: `${fmt(s.mb)} MB`,
        packages: s.packages,
        "transformers.js installed": s.transformers ? "yes" : "no",
      };
    }),
  );
  const prodBefore = stat("production", "before");
  const prodAfter = stat("production", "after");
  const goals: GoalRow[] = [
    {
      metric: "production install (`npm ci --omit=dev`) without transformers.js",
      goal: "transformers.js not installed",
      measured: prodAfter.transformers ? "installed" : "not installed",
      baseline: prodBefore.transformers ? "before: installed" : "before: not installed",
      pass: !prodAfter.transformers,
    },
    {
      metric: "production node_modules size",
      goal: "smaller than before",
      measured: `${fmt(prodAfter.mb)} MB`,
      baseline: `before ${fmt(prodBefore.mb)} MB (${fmt(prodAfter.mb / prodBefore.mb)}×)`,
      pass: prodAfter.mb < prodBefore.mb,
    },
    {
      metric: `production \`npm ci\` time (median of ${RUNS}, warm cache, no scripts)`,
      goal: "faster than before",
      measured: `${fmt(prodAfter.seconds, 1)} s`,
      baseline: `before ${fmt(prodBefore.seconds, 1)} s (${fmt(prodAfter.seconds / prodBefore.seconds)}×)`,
      pass: prodAfter.seconds < prodBefore.seconds,
    },
  ];
  const raw = Object.fromEntries([...samples].map(([key, list]) => [key, list.map((s) => ({ seconds: Math.round(s.ms) / 1000, bytes: s.bytes }))]));
  const file = await writeResults("install", goals, { runs: RUNS, before: files.before.from, after: files.after.from, samples: raw, tables: { sizes: rows } });
  log(`wrote ${file}`);
  console.log(rows);
}

await main();
