/**
 * The command rows again with `cairn watch` running: each command is still a new process, and the watcher (which
 * holds the index, the ledger and the lint results in memory) runs it for that process, re-checking every entry
 * file first. `CAIRN_USE_WATCH=require` makes a run that was not served fail instead of quietly timing the cold path.
 * The watcher's own memory is sampled from /proc (the rows' RSS is the client process's).
 */
import { spawn } from "node:child_process";
import { coldRun } from "./cold.js";
import { record, type RunRecord, type SizeMeasurements } from "./scale-report.js";
import { ROWS, type RowContext } from "./scale-rows.js";
import { procStatus } from "./scale-watch.js";

/** The rows of commands a watcher runs for others (`index` and `check` always run in their own process). */
export const SERVED_ROWS = new Set(["show", "status", "search", "inject", "search-edit", "confirm", "record-1", "record-20", "compound-5"]);

/** The results' name of a build's rows with its watcher running. */
export const servedName = (build: string) => `${build}+watch`;

/** Cold rows run in their own process even if a watcher of the root runs (none should; this makes it explicit). */
export const OWN_PROCESS = { CAIRN_USE_WATCH: "0" } as const;

export type ServedWatcher = { outcome: "ok" | "failed"; readyMs: number | null; peakRssMb: number | null; rssMb: number | null; stderr: string };

/** Start `cairn watch` on `root`, run `runs` repetitions of the served rows (each after a `node -e ""` baseline), stop it. */
export async function measureServed(
  cli: string,
  build: string,
  root: string,
  size: SizeMeasurements,
  context: Omit<RowContext, "cli" | "root" | "rep">,
  options: { runs: number; timeoutMs: number; log: (message: string) => void },
): Promise<ServedWatcher> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [cli, "--root", root, "watch"], { stdio: ["ignore", "pipe", "pipe"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let out = "";
  let err = "";
  child.stderr.on("data", (chunk: Buffer) => void (err += chunk.toString()));
  const serving = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), options.timeoutMs);
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes("other cairn commands of this repository run here")) clearTimeout(timer), resolve(true);
    });
    child.once("exit", () => (clearTimeout(timer), resolve(false)));
  });
  const watcher: ServedWatcher = { outcome: serving ? "ok" : "failed", readyMs: serving ? Math.round(performance.now() - t0) : null, peakRssMb: null, rssMb: null, stderr: "" };
  try {
    if (!serving) return { ...watcher, stderr: `${out.slice(-1_000)}\n${err.slice(-2_000)}` };
    const rows = (size.rows[servedName(build)] ??= {});
    const skip = new Set<string>();
    for (let rep = 0; rep < options.runs; rep++) {
      size.baselines.node.push(record(await coldRun(process.execPath, ["-e", ""])));
      const ctx: RowContext = { ...context, cli, root, rep: rep + 1_000 };
      for (const row of ROWS) {
        if (!SERVED_ROWS.has(row.id) || skip.has(row.id)) continue;
        await row.prepare?.(ctx);
        const run = await coldRun(process.execPath, [cli, "--root", root, ...row.args(ctx)], { timeoutMs: options.timeoutMs, env: { CAIRN_USE_WATCH: "require" }, ...(row.okCodes ? { okCodes: row.okCodes } : {}) });
        const rec: RunRecord = record(run, run.outcome === "ok" ? row.verify?.(run.stdout, ctx) : undefined);
        (rows[row.id] ??= { runs: [] }).runs.push(rec);
        if (run.outcome !== "ok") skip.add(row.id), options.log(`  ${servedName(build)} ${row.id}: ${run.outcome}; not repeated. stderr: ${run.stderr.trim().slice(-600)}`);
        options.log(`  rep ${rep + 1} ${servedName(build)} ${row.id}: ${Math.round(rec.ms)} ms${rec.problem ? ` (${rec.problem})` : ""}`);
      }
    }
    const memory = await procStatus(child.pid!);
    return { ...watcher, peakRssMb: memory ? Math.round(memory.hwmMb) : null, rssMb: memory ? Math.round(memory.rssMb) : null };
  } finally {
    child.kill("SIGTERM");
    // A watcher that does not stop is a failure to report, not a reason to stall the run.
    const stopped = await Promise.race([exited.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 60_000))]);
    if (!stopped) options.log(`  ${servedName(build)}: cairn watch did not exit within 60 s of SIGTERM; killed`), child.kill("SIGKILL");
  }
}
