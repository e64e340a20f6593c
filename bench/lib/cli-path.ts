/** The executable of a cairn build: the bundle package.json's `bin` names (dist/bin/cairn.js), or dist/cli/main.js in builds from before the bundle. */
import { existsSync } from "node:fs";
import path from "node:path";

/** `dist`: a build's dist/ directory, or a checkout holding one. */
export function cliIn(dist: string): string {
  const dir = existsSync(path.join(dist, "cli", "main.js")) ? dist : path.join(dist, "dist");
  const bundled = path.join(dir, "bin", "cairn.js");
  return existsSync(bundled) ? bundled : path.join(dir, "cli", "main.js");
}
