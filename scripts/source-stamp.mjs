/**
 * A hash of everything the build reads from this repository (src/, the build's scripts and configs, the package and
 * lock files): the build writes it to dist/source-stamp, and `npm test` skips the build when dist already holds the
 * build of these very sources — as after `npm ci`, whose `prepare` just built them.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

const INPUTS = ["scripts/bundle.mjs", "scripts/source-stamp.mjs", "tsconfig.json", "tsconfig.build.json", "package.json", "package-lock.json"];

export const STAMP_FILE = "dist/source-stamp";

export function sourceStamp(repo) {
  const files = [...INPUTS, ...readdirSync(path.join(repo, "src"), { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => path.relative(repo, path.join(e.parentPath ?? e.path, e.name)))];
  const hash = createHash("sha256");
  for (const file of [...new Set(files.map((f) => f.split(path.sep).join("/")))].sort()) {
    hash.update(file).update("\0");
    try {
      hash.update(readFileSync(path.join(repo, file)));
    } catch {
      hash.update("(missing)");
    }
    hash.update("\0");
  }
  return hash.digest("hex");
}
