#!/usr/bin/env node
/**
 * Bundle the command line (part of `npm run build`, after tsc): dist/bin/cairn.js and its chunks.
 *
 * Why: a cold `cairn` process spent a third of a one-file command (`show`, `confirm`) resolving, reading and
 * compiling ~250 separate modules (zod's and yaml's files alone are ~170). One ESM bundle with code splitting keeps
 * every lazy `import()` of the sources lazy (each command's module is its own chunk) and loads a few files instead.
 * The library (`dist/index.js`, its declarations) stays tsc's output; only the executable is bundled.
 *
 * Native, optional and data-heavy packages stay outside (resolved from node_modules at run time as before):
 * hnswlib-node (native), transformers.js and USE-lite with TF.js (optional, large), gpt-tokenizer (its tables are
 * loaded by a worker), chart.js (read as text into the report page), chokidar (the watcher only).
 *
 *   node scripts/bundle.mjs            # reads dist/ (run tsc first), writes dist/bin/
 */
import { createHash } from "node:crypto";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { sourceStamp, STAMP_FILE } from "./source-stamp.mjs";

const repo = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
const dist = path.join(repo, "dist");
const out = path.join(dist, "bin");
const { version } = JSON.parse(readFileSync(path.join(repo, "package.json"), "utf8"));

const EXTERNAL = ["hnswlib-node", "@huggingface/transformers", "@energetic-ai/*", "onnxruntime-node", "onnxruntime-web", "sharp", "gpt-tokenizer", "gpt-tokenizer/*", "chart.js", "chokidar"];

/** dist/version.js reads ../package.json beside itself; a chunk in dist/bin/ is one level deeper, so the bundle carries the version as a constant. */
const versionConstant = {
  name: "cairn-version",
  setup(b) {
    b.onLoad({ filter: /[\\/]dist[\\/]version\.js$/ }, () => ({ contents: `export const VERSION = ${JSON.stringify(version)};\n`, loader: "js" }));
  },
};

rmSync(out, { recursive: true, force: true });
const result = await build({
  absWorkingDir: repo,
  // Entry names are kept (dist/bin/cairn.js, dist/bin/token-worker.js): tokens.js finds its worker beside itself.
  entryPoints: { cairn: "dist/cli/main.js", "token-worker": "dist/retrieval/token-worker.js" },
  outdir: out,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20.19",
  external: EXTERNAL,
  plugins: [versionConstant],
  // jsonc-parser's main is a UMD build whose require("./impl/…") calls a bundle cannot follow: its ES module build.
  alias: { "jsonc-parser": "jsonc-parser/lib/esm/main.js" },
  // Bundled CommonJS dependencies call require(); an ESM chunk has none of its own.
  banner: { js: 'import { createRequire as __cairnRequire } from "node:module"; const require = __cairnRequire(import.meta.url);' },
  // Whitespace and syntax only: a cold command parses less code. Identifiers are not renamed, so a stack trace names
  // the functions it passes through (declarations keep their names; an anonymous function expression may lose the
  // name of the variable it was assigned to), by column of one long line. No code of cairn reads function names.
  // Measured at 10k entries, interleaved, 8 runs each: `show` 0.40 → 0.39 s, `status` 1.30 → 1.28 s.
  minifyWhitespace: true,
  minifySyntax: true,
  metafile: true,
  logLevel: "warning",
});
// Which source modules each chunk holds: test/cli/lazy-imports.test.ts maps the chunks a command loads back to them.
writeFileSync(path.join(out, "meta.json"), `${JSON.stringify(result.metafile)}\n`);
// What `cairn watch` and a command forwarded to it compare before the watcher runs the command: the same build on
// both sides, or the command runs in its own process (an upgraded cairn never talks to an older watcher's code).
const hash = createHash("sha256");
for (const file of Object.keys(result.metafile.outputs).sort()) hash.update(file).update("\0").update(readFileSync(path.join(repo, file))).update("\0");
writeFileSync(path.join(out, "build-id"), `${version}+${hash.digest("hex").slice(0, 32)}\n`);
// The last step of the build: dist now holds the build of these sources (scripts/source-stamp.mjs).
writeFileSync(path.join(repo, STAMP_FILE), `${sourceStamp(repo)}\n`);
