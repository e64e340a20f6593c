#!/usr/bin/env node
// `npm run demo`: cairn's main job on the bundled example knowledge (knowledge/ in this repo).
// It works in a scratch copy of the repo's knowledge and sources, so nothing in your checkout changes.
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
// The executable as installed: the bundle package.json's `bin` names.
const cli = path.join(repo, JSON.parse(readFileSync(path.join(repo, "package.json"), "utf8")).bin.cairn);
if (!existsSync(cli)) {
  console.error("dist/ is missing: run `npm ci` (it builds) or `npm run build` first.");
  process.exit(1);
}
const scratch = mkdtempSync(path.join(os.tmpdir(), "cairn-demo-"));
// Entries anchor into src/ and test/, so the scratch copy carries them; a git repository makes `history` show commits.
for (const item of ["knowledge", "src", "test", "cairn.config.json", ".gitattributes"]) {
  if (existsSync(path.join(repo, item))) cpSync(path.join(repo, item), path.join(scratch, item), { recursive: true });
}
writeFileSync(path.join(scratch, ".gitignore"), ".cairn/\n");
try {
  const git = (...args) => execFileSync("git", ["-c", "user.name=cairn demo", "-c", "user.email=demo@example.com", "-c", "init.defaultBranch=main", ...args], { cwd: scratch, stdio: "ignore" });
  git("init", "-q");
  git("add", "-A");
  git("commit", "-qm", "knowledge as shipped");
} catch {
  console.log("(git is not available: history will show ledger events only)");
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
step("build the search index (BM25 + embeddings + HNSW) in .cairn/", ["index"]);
step("hybrid search, with the reasons for each result", ["search", "moving entries to the archive must not overwrite files", "--explain"]);
const summary = "This pull request changes how entries are moved between knowledge/ and the archive, and how the frontmatter is rewritten.";
step("knowledge for the correctness agent in review demo-1 (at most 5, above the relevance floor)", [
  "inject", "--run", "demo-1", "--agent", "correctness", "--keywords", "archive,overwrite,rename",
  "--summary", summary, "--changed-files", "src/store/mutate.ts",
]);
step("and for the performance agent (JSON for programs)", [
  "inject", "--run", "demo-1", "--agent", "performance", "--keywords", "startup,latency,memory", "--summary", summary, "--format", "json",
]);
const findings = {
  findings: [
    { agent: "correctness", text: "Moving an entry must not overwrite an existing file", entry: "archive-moves-never-overwrite" },
    { agent: "performance", text: "Restoring an archived entry must never overwrite an entry with the same file name", entry: "archive-moves-never-overwrite" },
    { agent: "performance", text: "The README has a typo in the install section" },
  ],
};
step("record the review's findings: correctness was shown the entry (primed), performance was not (independent)", [
  "record", "--run", "demo-1", "--findings", "-",
], { input: JSON.stringify(findings) });
step("confirmation counts and decay counters after the review", ["status"]);
step("what happened to one entry", ["history", "archive-moves-never-overwrite"]);

rmSync(scratch, { recursive: true, force: true });
if (failed) {
  console.error("\ndemo: a step failed (see above)");
  process.exit(1);
}
console.log("\ndemo finished: every step above ran against the bundled knowledge/.");
