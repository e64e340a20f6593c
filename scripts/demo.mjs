#!/usr/bin/env node
// `npm run demo`: cairn's main job on the bundled example knowledge (knowledge/ in this repo).
// It works in a scratch copy of the repo's knowledge and sources, so nothing in your checkout changes.
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const cli = path.join(repo, "dist/cli/main.js");
if (!existsSync(cli)) {
  console.error("dist/ is missing: run `npm ci` (it builds) or `npm run build` first.");
  process.exit(1);
}
const scratch = mkdtempSync(path.join(os.tmpdir(), "cairn-demo-"));
for (const item of ["knowledge", "src", "cairn.config.json"]) {
  if (existsSync(path.join(repo, item))) cpSync(path.join(repo, item), path.join(scratch, item), { recursive: true });
}

let failed = false;
function step(title, args, { input, allowFail = false } = {}) {
  console.log(`\n\x1b[1m$ cairn ${args.map((a) => (/\s/.test(a) ? JSON.stringify(a) : a)).join(" ")}\x1b[0m   # ${title}`);
  try {
    const out = execFileSync(process.execPath, [cli, ...args], { cwd: scratch, input, encoding: "utf8", stdio: ["pipe", "pipe", "inherit"] });
    process.stdout.write(out);
  } catch (error) {
    process.stdout.write(error.stdout ?? "");
    if (!allowFail) failed = true;
    console.log(`(exit code ${error.status})`);
  }
}

console.log(`cairn demo — working in a scratch copy: ${scratch}`);
step("validate every entry: schema, sections, anchors, sanitization", ["check"]);
step("every entry with its decay counter and confirmations", ["status"]);

rmSync(scratch, { recursive: true, force: true });
if (failed) {
  console.error("\ndemo: a step failed (see above)");
  process.exit(1);
}
console.log("\ndemo finished: every step above ran against the bundled knowledge/.");
