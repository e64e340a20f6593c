/**
 * Paths named by a user or an MCP client (e.g. `cairn check PATH…`): the CLI and every MCP tool
 * validate them with this one function, so a path the CLI refuses is refused over MCP too.
 */
import { stat } from "node:fs/promises";
import path from "node:path";
import { CairnError } from "../errors.js";
import { escapeError, findEscape } from "./contain.js";
import type { Layout } from "./layout.js";

/**
 * Throw CairnError UNSAFE_PATH when a path (relative to the root, or absolute: the CLI resolves what the user typed
 * against the working directory first) is outside the repository or reached through a symbolic link that leaves it,
 * and USAGE when it does not exist.
 */
export async function checkUserPaths(layout: Layout, paths: readonly string[]): Promise<void> {
  for (const p of paths) {
    if (p.includes("\0")) throw new CairnError("USAGE", `${JSON.stringify(p)} holds a NUL character; expected a path relative to the root`);
    const abs = path.resolve(layout.root, p);
    const relative = path.isAbsolute(p) ? "" : " (paths are relative to the root)";
    const escape = await findEscape(layout.root, abs);
    if (escape) {
      throw escape.link === escape.target
        ? new CairnError("UNSAFE_PATH", `${p} is outside the project root ${layout.root}; cairn only reads entries inside it${relative}`)
        : escapeError(layout.root, escape, `read ${p}`);
    }
    const exists = await stat(abs).then(() => true, () => false);
    if (!exists) throw new CairnError("USAGE", `no such file or directory: ${p}${path.isAbsolute(p) ? "" : ` (paths are relative to ${layout.root})`}`);
  }
}
