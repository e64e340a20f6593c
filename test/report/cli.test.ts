/** `cairn report` as a real process: where the page goes, --json, and refusing to write outside the repository. */
import { mkdir, readdir, readFile, stat, symlink } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cairn } from "../helpers/cli.js";
import { testdir } from "../helpers/fixture.js";
import { databaseEntries, project } from "../lifecycle/setup.js";

/** A small knowledge base with two runs recorded. */
async function small() {
  const p = await project(databaseEntries(3));
  for (const run of ["r1", "r2"]) {
    p.clock.tick();
    await p.kb.inject({ run, agent: "performance", keywords: ["database"] });
    await p.kb.recordFindings(run, [{ agent: "performance", text: "Database connections leak on error paths.", entry: "db-1" }]);
  }
  return p;
}

const exists = (file: string) => stat(file).then(() => true, () => false);

describe("cairn report", () => {
  it("writes .cairn/report/index.html by default and prints where, with a file:// link", async () => {
    const { root } = await small();
    const result = await cairn(["report"], { cwd: root });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`wrote .cairn/report/index.html\nopen file://${path.join(root, ".cairn/report/index.html")}\n`);
    expect(result.stderr).toContain("3 active and 0 archived entries, 2 runs, 1 agent; works offline");
    const html = await readFile(path.join(root, ".cairn/report/index.html"), "utf8");
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain('"id":"db-1"');
    // Written atomically: no temp file left beside it.
    expect(await readdir(path.join(root, ".cairn/report"))).toEqual(["index.html"]);
  });

  it("takes --out relative to the working directory, as a directory or an .html file", async () => {
    const { root } = await small();
    await mkdir(path.join(root, "docs"));
    expect((await cairn(["report", "--out", "site"], { cwd: path.join(root, "docs") })).stdout).toMatch(/^wrote site\/index\.html\n/);
    expect(await exists(path.join(root, "docs/site/index.html"))).toBe(true);
    expect((await cairn(["--root", root, "report", "--out", path.join(root, "knowledge.html")])).code).toBe(0);
    expect(await exists(path.join(root, "knowledge.html"))).toBe(true);
  });

  it("refuses an --out outside the repository, or through a link that leaves it, naming it (exit 2, nothing written)", async () => {
    const { root } = await small();
    const outside = await testdir();
    const away = await cairn(["report", "--out", path.join(outside, "r")], { cwd: root });
    expect(away.code).toBe(2);
    expect(away.stderr).toContain(`cairn: refusing to write the report to ${path.join(outside, "r")}: ${path.join(outside, "r/index.html")} is outside the repository root ${root}`);
    await symlink(outside, path.join(root, "published"));
    const linked = await cairn(["report", "--out", "published/knowledge"], { cwd: root });
    expect(linked.code).toBe(2);
    expect(linked.stderr).toContain(`refusing to write the report to published/knowledge: published is a symbolic link to ${outside}, outside the repository root`);
    expect(await readdir(outside)).toEqual([]);
  });

  it("--json prints the model the page renders (the same as kb.report())", async () => {
    const { root, kb } = await small();
    const result = await cairn(["report", "--json", "--runs", "1"], { cwd: root });
    expect(result.code).toBe(0);
    const printed = JSON.parse(result.stdout);
    const library = await kb.report({ runs: 1 });
    expect({ ...printed, generatedAt: "" }).toEqual({ ...library, generatedAt: "" });
    expect(printed.runs.map((r: { id: string }) => r.id)).toEqual(["r2"]);
    expect(await exists(path.join(root, ".cairn/report"))).toBe(false);
  });

  it("says what to do in a directory without a knowledge base", async () => {
    const root = await testdir({ "cairn.config.json": "{}" });
    const result = await cairn(["report"], { cwd: root });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/cairn init/);
    expect(await exists(path.join(root, ".cairn"))).toBe(false);
  });
});
