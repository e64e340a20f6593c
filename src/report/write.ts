/**
 * Write the report page: atomically (temp file + rename), inside the repository only — an `--out`
 * outside the root, or one reached through a symbolic link that leaves it, is refused by name.
 */
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { CairnError } from "../errors.js";
import { writeFileAtomic } from "../store/atomic.js";
import { escapeError, findEscape } from "../store/contain.js";
import type { Layout } from "../store/layout.js";

/** Where the page goes by default, relative to the root: inside the derived, gitignored `.cairn/`. */
export const DEFAULT_REPORT_DIR = ".cairn/report";

/** The file the page is written to: `DIR/index.html`, or OUT itself when it ends in `.html`. OUT is relative to the root unless absolute. */
export function reportFile(layout: Layout, out: string = DEFAULT_REPORT_DIR): string {
  const abs = path.resolve(layout.root, out);
  return /\.html?$/i.test(abs) ? abs : path.join(abs, "index.html");
}

/** Write `html` to the report file and return its absolute path. `label`: OUT as the user typed it, for error messages (default OUT). */
export async function writeReport(layout: Layout, html: string, out?: string, label?: string): Promise<string> {
  const file = reportFile(layout, out);
  const shown = label ?? out ?? DEFAULT_REPORT_DIR;
  const check = async () => {
    const escape = await findEscape(layout.root, file);
    if (!escape) return;
    if (escape.link === escape.target) {
      throw new CairnError("UNSAFE_PATH", `refusing to write the report to ${shown}: ${file} is outside the repository root ${path.resolve(layout.root)}; --out must be a directory inside it, e.g. --out ${DEFAULT_REPORT_DIR}`);
    }
    throw escapeError(path.resolve(layout.root), escape, `write the report to ${shown}`);
  };
  await check();
  await mkdir(path.dirname(file), { recursive: true });
  // Again after creating directories: one of them may have been a dangling link.
  await check();
  await writeFileAtomic(file, html);
  return file;
}
