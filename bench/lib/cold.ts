/**
 * One cold process, timed from spawn to exit, with its peak RSS from `/usr/bin/time -f %M` (GNU time;
 * falls back to no RSS when it is missing), a timeout that kills the whole process group, and the
 * outcome as a value: ok, failed (non-zero exit, with its stderr) or timed out.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";

const GNU_TIME = "/usr/bin/time";

export type ColdRun = {
  /** Wall milliseconds from spawn to exit. */
  ms: number;
  /** Peak resident set size of the command in MB (GNU time's %M); null when not available. */
  rssMb: number | null;
  /** ok: exit code accepted; failed: another exit code or a crash; timeout: killed after `timeoutMs`. */
  outcome: "ok" | "failed" | "timeout";
  code: number | null;
  stdout: string;
  stderr: string;
};

export type ColdOptions = {
  /** Working directory. Default: this process's. */
  cwd?: string;
  /** Kill the command (and its children) after this many ms. Default 10 minutes. */
  timeoutMs?: number;
  /** Exit codes that count as success. Default [0]. */
  okCodes?: readonly number[];
  /** Extra environment variables. Default none. */
  env?: Record<string, string>;
};

/** Whether peak RSS can be measured (GNU time at /usr/bin/time). */
export const hasGnuTime = existsSync(GNU_TIME);

/** Run `command args` as a cold process; never throws for a failing command (only when it cannot start). */
export async function coldRun(command: string, args: readonly string[], options: ColdOptions = {}): Promise<ColdRun> {
  const timeoutMs = options.timeoutMs ?? 10 * 60_000;
  const okCodes = options.okCodes ?? [0];
  const dir = hasGnuTime ? await mkdtemp(path.join(os.tmpdir(), "cairn-cold-")) : undefined;
  const timeFile = dir ? path.join(dir, "time") : undefined;
  const [bin, argv] = timeFile ? [GNU_TIME, ["-f", "%e %M", "-o", timeFile, command, ...args]] : [command, [...args]];
  try {
    return await new Promise<ColdRun>((resolve, reject) => {
      const t0 = performance.now();
      // Own process group: a timeout kills time(1), node and anything node started.
      const child = spawn(bin, argv, { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ["ignore", "pipe", "pipe"], detached: true });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      child.stdout.on("data", (c: Buffer) => out.push(c));
      child.stderr.on("data", (c: Buffer) => err.push(c));
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        try {
          process.kill(-child.pid!, "SIGKILL");
        } catch {
          // already gone
        }
      }, timeoutMs);
      child.on("error", (error) => {
        clearTimeout(timer);
        reject(new Error(`could not start ${bin} ${argv.join(" ")}: ${error.message}`, { cause: error }));
      });
      child.on("close", async (code, signal) => {
        clearTimeout(timer);
        const ms = performance.now() - t0;
        let rssMb: number | null = null;
        let exit = code;
        if (timeFile) {
          const text = await readFile(timeFile, "utf8").catch(() => "");
          // GNU time writes "Command exited with non-zero status N" before the format line.
          const last = text.trim().split("\n").at(-1) ?? "";
          const kb = Number(last.split(" ")[1]);
          if (Number.isFinite(kb) && kb > 0) rssMb = kb / 1024;
          if (/terminated by signal/.test(text)) exit = null;
        }
        const stderr = Buffer.concat(err).toString("utf8");
        const outcome = timedOut ? "timeout" : exit !== null && okCodes.includes(exit) && !signal ? "ok" : "failed";
        resolve({ ms, rssMb, outcome, code: exit, stdout: Buffer.concat(out).toString("utf8"), stderr });
      });
    });
  } finally {
    if (dir) await rm(dir, { recursive: true, force: true });
  }
}
