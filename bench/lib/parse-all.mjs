/**
 * The parse-all baseline of bench/scale.ts, run as its own cold process with plain node: read every
 * entry file (knowledge/*.md and knowledge/archive/*.md) and parse its frontmatter with gray-matter,
 * one file after another. What any command that "parses every entry" cannot beat.
 *
 *   node bench/lib/parse-all.mjs ROOT
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import matter from "gray-matter";

const root = process.argv[2];
if (!root) throw new Error("usage: node bench/lib/parse-all.mjs ROOT");
let entries = 0;
let keys = 0;
for (const dir of [path.join(root, "knowledge"), path.join(root, "knowledge", "archive")]) {
  for (const name of readdirSync(dir)) {
    if (!name.endsWith(".md")) continue;
    const parsed = matter(readFileSync(path.join(dir, name), "utf8"));
    keys += Object.keys(parsed.data).length;
    entries++;
  }
}
process.stdout.write(`${JSON.stringify({ entries, keys })}\n`);
