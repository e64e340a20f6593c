import { describe, expect, it } from "vitest";
import { limiter } from "../../src/store/files.js";

describe("limiter", () => {
  it("runs at most `limit` calls at once, in the order they came, and passes results and failures through", async () => {
    const slot = limiter(3);
    let active = 0;
    let peak = 0;
    const started: number[] = [];
    const calls = Array.from({ length: 10 }, (_, k) =>
      slot(async () => {
        started.push(k);
        peak = Math.max(peak, ++active);
        await new Promise((resolve) => setTimeout(resolve, 5 + (k % 3)));
        active--;
        if (k === 4) throw new Error("four");
        return k * 2;
      }),
    );
    const settled = await Promise.allSettled(calls);
    expect(peak).toBe(3);
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(settled.map((s) => (s.status === "fulfilled" ? s.value : (s.reason as Error).message))).toEqual([0, 2, 4, 6, "four", 10, 12, 14, 16, 18]);
  });
});
