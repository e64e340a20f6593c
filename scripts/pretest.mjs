/**
 * `npm test`'s first step: the type check of everything (tests included) and the build that the CLI tests run, side by
 * side (the build only when dist is not already the build of these sources: scripts/source-stamp.mjs). Each is mostly one tsc process, so together they use both cores of a small machine (~30 s in a row, ~20 s so).
 * The build's `tsc -p src/report/page` type-checks the report page too. Exits non-zero when either fails.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { sourceStamp, STAMP_FILE } from "./source-stamp.mjs";

const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const run = (command, args) =>
  new Promise((resolve) => {
    const child = spawn(command, args, { stdio: "inherit", shell: process.platform === "win32" });
    child.on("error", () => resolve(1));
    child.on("close", (code) => resolve(code ?? 1));
  });

const repo = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
const stamp = (() => {
  try {
    return readFileSync(path.join(repo, STAMP_FILE), "utf8").trim();
  } catch {
    return undefined;
  }
})();
// After `npm ci` (its `prepare` builds) dist is the build of these very sources: building it again cost ~10 s of a
// test run. The page's type check, which the build does, then runs on its own.
const current = stamp === sourceStamp(repo) && existsSync(path.join(repo, "dist/bin/cairn.js"));
if (current) console.log("dist is the build of these sources (dist/source-stamp): not built again");
const codes = await Promise.all([
  run(process.execPath, [tsc, "-p", "tsconfig.json", "--noEmit"]),
  current ? run(process.execPath, [tsc, "-p", "src/report/page", "--noEmit"]) : run("npm", ["run", "--silent", "build"]),
]);
process.exit(codes.every((code) => code === 0) ? 0 : 1);
