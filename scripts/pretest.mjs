/**
 * `npm test`'s first step: the type check of everything (tests included) and the build that the CLI tests run, side by
 * side. Each is mostly one tsc process, so together they use both cores of a small machine (~30 s in a row, ~20 s so).
 * The build's `tsc -p src/report/page` type-checks the report page too. Exits non-zero when either fails.
 */
import { spawn } from "node:child_process";
import { createRequire } from "node:module";

const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const run = (command, args) =>
  new Promise((resolve) => {
    const child = spawn(command, args, { stdio: "inherit", shell: process.platform === "win32" });
    child.on("error", () => resolve(1));
    child.on("close", (code) => resolve(code ?? 1));
  });

const codes = await Promise.all([run(process.execPath, [tsc, "-p", "tsconfig.json", "--noEmit"]), run("npm", ["run", "--silent", "build"])]);
process.exit(codes.every((code) => code === 0) ? 0 : 1);
