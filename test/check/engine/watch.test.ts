/** `watch` reports a file the rules reject as invalid, with its diagnostics, never as "updated". */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { openKnowledgeBase } from "../../../src/index.js";
import type { WatchEvent } from "../../../src/indexing/watch.js";
import { fakeEmbedder } from "../../helpers/fake-embedder.js";
import { entryText, SOURCE_FILES, testdir } from "../../helpers/fixture.js";

async function waitFor(check: () => boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("condition not reached in time");
}

describe("cairn watch and the rules", () => {
  it("reports an entry with a gating error as invalid (with the rule), and a valid edit as updated", async () => {
    const root = await testdir({ ...SOURCE_FILES, "knowledge/a.md": entryText({ finding: "Alpha finding about caching headers." }) });
    const kb = await openKnowledgeBase({ root, embedder: fakeEmbedder() });
    const events: WatchEvent[] = [];
    const handle = await kb.watch({ debounceMs: 50, onEvent: (e) => events.push(e) });
    await handle.ready;
    try {
      await writeFile(path.join(root, "knowledge/a.md"), entryText({ fm: "lastConfirmed: nope\nprovenance: independent", finding: "Alpha finding about caching headers, edited." }));
      await waitFor(() => events.some((e) => e.type === "invalid"));
      const invalid = events.find((e) => e.type === "invalid");
      expect(invalid).toMatchObject({ diagnostics: [expect.objectContaining({ file: "knowledge/a.md", rule: "frontmatter-invalid", severity: "error" })] });
      expect(events.some((e) => e.type === "updated" && e.report.updated.includes("a"))).toBe(false);

      await writeFile(path.join(root, "knowledge/a.md"), entryText({ finding: "Alpha finding about caching headers, fixed." }));
      await waitFor(() => events.some((e) => e.type === "updated" && e.report.updated.includes("a")));
      expect(events.filter((e) => e.type === "invalid")).toHaveLength(1);
    } finally {
      await handle.close();
    }
  });
});
