/** `npm run readme`: regenerate the README's benchmark tables from bench/results/*.json (see bench/lib/readme.ts). */
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { renderReadme } from "../bench/lib/readme.js";
import { RESULTS_DIR } from "../bench/lib/report.js";

const README = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "README.md");
const before = await readFile(README, "utf8");
const after = await renderReadme(before, RESULTS_DIR);
if (after !== before) await writeFile(README, after);
console.log(after === before ? "README.md tables are current" : "README.md tables regenerated from bench/results/");
