import { describe, expect, it } from "vitest";
import { collectGarbage } from "../../src/store/gc.js";
import { owned, ownString } from "../../src/text/own.js";

/** Heap growth (MB) while `keep` holds what `cut` takes from 200 distinct 200 KB texts. */
function retainedMb(cut: (text: string) => string): { kept: string[]; mb: number } {
  collectGarbage();
  const before = process.memoryUsage().heapUsed;
  const kept: string[] = [];
  for (let i = 0; i < 200; i++) {
    const text = `${i}:`.padEnd(200_000, "x") + `packages/api/src/handler-${i}.ts`;
    kept.push(cut(text.slice(200_000, 200_000 + 24)));
  }
  collectGarbage();
  return { kept, mb: (process.memoryUsage().heapUsed - before) / 1e6 };
}

describe("own strings", () => {
  it("keeps the value and not the text it was cut from", () => {
    const sliced = retainedMb((s) => s);
    const copied = retainedMb(ownString);
    expect(copied.kept).toEqual(sliced.kept);
    expect(sliced.mb).toBeGreaterThan(20); // the slices hold their 200 KB parents (what the copy avoids)
    expect(copied.mb).toBeLessThan(5);
  });

  it("copies plain data deeply, values unchanged, other objects as they are", () => {
    const date = new Date(0);
    const value = { a: "x".repeat(20), list: ["y".repeat(30), 1, null, { b: "z" }], when: date, n: Number.NaN };
    const copy = owned(value);
    expect(copy).toEqual(value);
    expect(copy).not.toBe(value);
    expect(copy.list).not.toBe(value.list);
    expect(copy.when).toBe(date);
    expect(ownString("\ud800 lone surrogate kept as is")).toBe("\ud800 lone surrogate kept as is");
  });
});
