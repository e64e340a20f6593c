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

  it("serves 200,000 queued calls in linear time, in order", async () => {
    const serve = async (count: number): Promise<number> => {
      const slot = limiter(16);
      const order: number[] = [];
      const started = performance.now();
      await Promise.all(Array.from({ length: count }, (_, k) => slot(async () => void order.push(k))));
      expect(order.length).toBe(count);
      expect(order.every((v, k) => v === k)).toBe(true);
      return performance.now() - started;
    };
    const small = await serve(20_000);
    const large = await serve(200_000);
    // A guard against quadratic queueing, not a speed target: against 10× the calls in the same run (a loaded machine
    // slows both), linear is ~10×, and Array#shift's quadratic queue was ~100× (~16 s against this ~0.5 s).
    expect(large).toBeLessThan(30 * Math.max(small, 20));
  });
});
