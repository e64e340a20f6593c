import { readdir } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { openKnowledgeBase } from "../src/index.js";
import { REPO } from "./helpers/cli.js";

describe("the project's own knowledge (dogfood)", () => {
  it("ships 8–15 entries and every one passes cairn check, anchors resolved against this repository", async () => {
    const files = (await readdir(path.join(REPO, "knowledge"))).filter((f) => f.endsWith(".md"));
    expect(files.length).toBeGreaterThanOrEqual(8);
    expect(files.length).toBeLessThanOrEqual(15);
    const kb = await openKnowledgeBase({ root: REPO });
    const report = await kb.check();
    expect(report.diagnostics).toEqual([]);
    expect(report.files).toBe(files.length);
  });
});
