/** The README's benchmark tables are generated from bench/results, never edited by hand. */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { renderReadme, renderSection } from "../bench/lib/readme.js";
import { RESULTS_DIR } from "../bench/lib/report.js";
import { REPO } from "./helpers/cli.js";

describe("README benchmark tables", () => {
  it("match bench/results (run `npm run readme` after a bench)", async () => {
    const readme = await readFile(path.join(REPO, "README.md"), "utf8");
    expect(await renderReadme(readme, RESULTS_DIR)).toBe(readme);
  });

  it("render goal rows, named tables and a note for missing results", async () => {
    const goals = [{ metric: "m", goal: "≤ 1", measured: "0.5", pass: true }];
    expect(renderSection({ goals }, "x")).toContain("| m | ≤ 1 | 0.5 |");
    expect(renderSection({ tables: { t: [{ a: 1, b: "z" }] } }, "x", "t")).toBe("| a | b |\n|---|---|\n| 1 | z |");
    expect(renderSection(undefined, "x")).toContain("npm run bench -- x");
    const text = "a\n<!-- bench:none -->\nold\n<!-- /bench -->\nb";
    expect(await renderReadme(text, "/nonexistent")).toBe("a\n<!-- bench:none -->\n_(no results yet: run `npm run bench -- none`)_\n<!-- /bench -->\nb");
  });
});
