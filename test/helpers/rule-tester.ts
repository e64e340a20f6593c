/**
 * A RuleTester-style helper (after ESLint's): lint one entry text through the real engine, in a
 * temp project with the default source files, and get `rule@line` for every final diagnostic.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { DEFAULT_CONFIG, type CairnConfig } from "../../src/config.js";
import { createLinter } from "../../src/check/engine.js";
import type { Diagnostic } from "../../src/entry/diagnostic.js";
import { layoutFor } from "../../src/store/layout.js";
import { SOURCE_FILES, testdir } from "./fixture.js";

export type LintedEntry = { diagnostics: Diagnostic[]; hits: string[]; parsed: boolean };

/** Lint `text` as `knowledge/entry.md` with `config` overrides (e.g. `{ rules: { … } }`). */
export async function lintEntry(text: string, config: Partial<CairnConfig> = {}, files: Record<string, string> = {}): Promise<LintedEntry> {
  const root = await testdir({ ...SOURCE_FILES, ...files, "knowledge/entry.md": "" });
  await writeFile(path.join(root, "knowledge/entry.md"), text);
  const resolved = { ...DEFAULT_CONFIG, ...config };
  const layout = layoutFor(root, resolved);
  const linter = await createLinter(layout, resolved);
  const { read, diagnostics } = await linter.lintFile({ abs: path.join(root, "knowledge/entry.md"), rel: "knowledge/entry.md", state: "active" }, "2026-03-01");
  return { diagnostics, hits: diagnostics.map((d) => `${d.rule}@${d.line}`), parsed: read.entry !== undefined };
}
