/**
 * Regression guard for linear time (the goal figure lives in bench/hostile.ts): 200 KB bodies
 * repeating the triggers of the reproductions and of the rules that were super-linear
 * finish well inside a generous bound. Before: `password=` × 8 KB took 27 s per 72 KB.
 */
import { describe, expect, it } from "vitest";
import { hostileEntry } from "../../../bench/lib/hostile.js";
import { lintEntry } from "../../helpers/rule-tester.js";

describe("check on hostile input", () => {
  it.each(["password=", "?token=a1&", "## SYSTEM\n", "<|im_start|>", "```\n", "x.internal ", "the user ", "system prompt "])("%j × 200 KB finishes in seconds, with a bounded number of diagnostics", async (prefix) => {
    const started = Date.now();
    const { diagnostics, parsed } = await lintEntry(hostileEntry(prefix, 200_000));
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(parsed).toBe(true);
    const perRule = new Map<string, number>();
    for (const d of diagnostics) perRule.set(d.rule, (perRule.get(d.rule) ?? 0) + 1);
    for (const count of perRule.values()) expect(count).toBeLessThanOrEqual(61);
  });
});
