/**
 * Definition finding is linear on hostile files: a line of 200,000 spaces (the `\s*\*?\s*` patterns
 * backtracked quadratically: about a minute) and a file defining one name 30,000 times (each
 * definition's extent followed: over a minute) both resolve in well under a second now. The bounds
 * are generous (a shared machine); the old code missed them by two orders of magnitude.
 */
import { describe, expect, it } from "vitest";
import { definitionsOf } from "../../src/anchors/definitions.js";
import { createLocator } from "../../src/anchors/resolve.js";
import { testdir } from "../helpers/fixture.js";

const timed = <T>(work: () => T): { value: T; ms: number } => {
  const t0 = performance.now();
  const value = work();
  return { value, ms: performance.now() - t0 };
};

describe("definitions on hostile lines", () => {
  for (const [file, line] of [
    ["x.ts", " ".repeat(200_000)],
    ["x.ts", `function ${" ".repeat(200_000)}`],
    ["x.ts", `  get ${"\t ".repeat(100_000)}(`],
    ["x.go", `func (a ${" ".repeat(200_000)}`],
  ] as const) {
    it(`${file}: ${JSON.stringify(line.slice(0, 12))}… (${line.length} characters) is scanned in linear time`, () => {
      const { ms } = timed(() => definitionsOf(file, [line, "function f() {}"])!.find("f"));
      expect(ms).toBeLessThan(2_000);
    });
  }

  it("a name defined 30,000 times: only the definitions nearest the cited line are followed", () => {
    const lines = Array.from({ length: 30_000 }, () => "function f() {");
    const { value, ms } = timed(() => definitionsOf("x.ts", lines)!.find("f", 15_000));
    expect(ms).toBeLessThan(2_000);
    expect(value.length).toBeLessThanOrEqual(32);
    expect(value.some((d) => d.start === 15_000)).toBe(true);
  });
});

describe("the locator's read limit", () => {
  it("does not read a file over maxFileBytes: the anchor cannot be checked there", async () => {
    const root = await testdir({ "src/big.ts": `export function handleRequest() {}\n${"// filler\n".repeat(20_000)}` });
    const locator = createLocator(root, { maxFileBytes: 100_000, renames: false });
    expect(await locator.files.facts("src/big.ts")).toEqual({ error: expect.stringContaining("larger than 100000 bytes") });
    const unlimited = createLocator(root, { renames: false });
    expect(await unlimited.files.facts("src/big.ts")).toMatchObject({ lineCount: 20_001 });
  });
});
