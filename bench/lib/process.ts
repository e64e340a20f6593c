/** Time a child process from spawn to exit (stdout and stderr captured). */
import { spawn } from "node:child_process";
import { performance } from "node:perf_hooks";

export type ProcessRun = { ms: number; code: number | null; stdout: string; stderr: string };

export type RunOptions = {
  /** Working directory. Default: this process's. */
  cwd?: string;
  /** Extra environment variables. Default none. */
  env?: Record<string, string>;
  /** Pass the child's output through to ours as it arrives. Default false. */
  inherit?: boolean;
};

export function runProcess(command: string, args: readonly string[], options: RunOptions = {}): Promise<ProcessRun> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => {
      out.push(chunk);
      if (options.inherit) process.stdout.write(chunk);
    });
    child.stderr.on("data", (chunk: Buffer) => {
      err.push(chunk);
      if (options.inherit) process.stderr.write(chunk);
    });
    child.on("error", (error) => reject(new Error(`could not start ${command} ${args.join(" ")}: ${error.message}`, { cause: error })));
    child.on("close", (code) => {
      resolve({ ms: performance.now() - t0, code, stdout: Buffer.concat(out).toString("utf8"), stderr: Buffer.concat(err).toString("utf8") });
    });
  });
}
