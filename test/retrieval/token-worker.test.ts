/** The built token counter (dist/): it counts in a worker thread, exactly as in this thread. */
import { existsSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { tokenCounter as inThread } from "../../src/retrieval/tokens.js";

const built = path.resolve(import.meta.dirname, "../../dist/retrieval/tokens.js");

describe.skipIf(!existsSync(built))("token counter in a worker (the build)", () => {
  it("gives the same counts as the in-thread counter, concurrent calls included, and lets the process exit", async () => {
    const { tokenCounter, prepareTokenCounter } = (await import(pathToFileURL(built).href)) as typeof import("../../src/retrieval/tokens.js");
    prepareTokenCounter();
    const [worker, local] = await Promise.all([tokenCounter(), inThread()]);
    const texts = ["Hello world", "", `## Knowledge Context\n\n- **Retry** — ${"x".repeat(900)} done`, "a".repeat(5_000), "naïve café — 東京 🚀"];
    const counted = await Promise.all(texts.map((t) => worker(t)));
    expect(counted).toEqual(await Promise.all(texts.map((t) => local(t))));
    expect(counted[0]).toBe(2);
  });
});
