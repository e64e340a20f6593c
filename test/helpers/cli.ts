/** Run the built CLI as a real process: the executable package.json's `bin` names (the bundle in dist/bin/). */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const CLI = path.join(REPO, (JSON.parse(readFileSync(path.join(REPO, "package.json"), "utf8")) as { bin: { cairn: string } }).bin.cairn);

export type CliResult = { code: number; stdout: string; stderr: string };

export function cairn(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string | Buffer; nodeArgs?: string[] } = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [...(options.nodeArgs ?? []), CLI, ...args],
      { cwd: options.cwd ?? REPO, env: { ...process.env, NO_COLOR: "1", ...options.env }, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}
