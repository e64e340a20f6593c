import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { lintCatalogue } from "../../src/check/catalogue-lint.js";
import { openKnowledgeBase } from "../../src/index.js";
import { entryText, SOURCE_FILES, testdir } from "../helpers/fixture.js";

// Every AsyncLocalStorage the product creates is counted: Node 20 keeps each one that ever ran and visits it
// whenever a promise is created, so a store per linter made a long-lived process slower with every call.
const stores = vi.hoisted(() => ({ created: 0 }));
vi.mock("node:async_hooks", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:async_hooks")>();
  class Counted<T> extends real.AsyncLocalStorage<T> {
    constructor() {
      super();
      stores.created++;
    }
  }
  return { ...real, AsyncLocalStorage: Counted };
});

describe("anchor resolution in a long-lived process", () => {
  it("creates no async context store per linter, however many anchors it resolves", async () => {
    const files: Record<string, string> = { ...SOURCE_FILES, "src/db.ts": "export function query() {\n  return 1;\n}\n" };
    for (let k = 0; k < 3; k++) files[`knowledge/db-${k}.md`] = entryText({ finding: `Query ${k} runs outside a transaction and reads torn rows.`, evidence: "src/db.ts:1-3, query() — no transaction." });
    const root = await testdir(files);
    const kb = await openKnowledgeBase({ root, embedder: null });
    const before = stores.created;
    for (let run = 1; run <= 4; run++) {
      // Each run moves the anchored code, so every anchor is resolved again by a new linter.
      await writeFile(path.join(root, "src/db.ts"), `${"// pad\n".repeat(run * 5)}export function query() {\n  return 1;\n}\n`);
      const { events } = await kb.ledger.read();
      const result = await lintCatalogue({ layout: kb.layout, config: kb.config, view: await kb.knowledge(), events, today: kb.today() });
      expect(result.computed.anchors).toBe(3);
      expect(result.diagnostics.filter((d) => d.rule === "anchor-moved")).toHaveLength(3);
    }
    expect(stores.created).toBe(before);
  });
});
