/** The token budget: counted with a real tokenizer (o200k_base), entries added in rank order while they fit. */
import { describe, expect, it } from "vitest";
import { tokenCounter, TOKENIZER } from "../../src/retrieval/tokens.js";
import { databaseEntries, entry, project } from "../lifecycle/setup.js";

/** ~40 KB of ordinary prose in one finding: the reproduction (it injected ~10,000 tokens). */
const huge = `Database connections leak under load. ${"The database pool hands out a database connection and the error path returns before release, so the database pool drains. ".repeat(330)}`;

describe("inject: token budget", () => {
  it("skips an entry that does not fit (named in a warning) and keeps the smaller ones, all counted in o200k_base tokens", async () => {
    const { kb } = await project({ ...databaseEntries(3), "knowledge/huge.md": entry(huge) });
    const result = await kb.inject({ run: "r1", agent: "a", keywords: ["database"], dryRun: true });
    expect(result.entries.map((e) => e.id)).not.toContain("huge");
    expect(result.entries.length).toBe(3);
    expect(result.warnings.join("\n")).toMatch(/skipped huge: it would take the Knowledge Context to \d{4,} tokens, over the 4000-token budget/);
    expect(result).toMatchObject({ tokenizer: "o200k_base", maxTokens: 4000 });
    const count = await tokenCounter();
    expect(result.tokens).toBe(await count(result.markdown));
    expect(result.tokens).toBeLessThanOrEqual(4000);
  });

  it("a larger --max-tokens lets it in; a smaller one keeps only what fits, in rank order", async () => {
    const { kb } = await project({ ...databaseEntries(3), "knowledge/huge.md": entry(huge) });
    const roomy = await kb.inject({ run: "r1", agent: "a", keywords: ["database"], maxTokens: 20_000, dryRun: true });
    expect(roomy.entries.map((e) => e.id)).toContain("huge");
    expect(roomy.tokens).toBeGreaterThan(4000);
    const tight = await kb.inject({ run: "r1", agent: "a", keywords: ["database"], maxTokens: 300, dryRun: true });
    expect(tight.tokens).toBeLessThanOrEqual(300);
    expect(tight.entries.length).toBeGreaterThan(0);
    expect(tight.entries.length).toBeLessThan(3);
  });

  it("config maxInjectTokens sets the default budget", async () => {
    const { kb } = await project(databaseEntries(3), { config: { maxInjectTokens: 250 } });
    const result = await kb.inject({ run: "r1", agent: "a", keywords: ["database"], dryRun: true });
    expect(result.maxTokens).toBe(250);
    expect(result.tokens).toBeLessThanOrEqual(250);
  });

  it("counts long runs without spaces in bounded time (BPE is quadratic in one long word)", async () => {
    const count = await tokenCounter();
    const started = Date.now();
    const n = await count("a".repeat(200_000));
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(n).toBeGreaterThan(0);
    expect(await count("Hello world")).toBe(2);
    expect(TOKENIZER).toBe("o200k_base");
  });
});
