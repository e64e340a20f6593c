import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { coldRun, hasGnuTime } from "../../bench/lib/cold.js";
import { firstIndexRows, summarizeRuns, type RunRecord, type SizeMeasurements } from "../../bench/lib/scale-report.js";

describe("coldRun (bench/lib/cold.ts)", () => {
  it("times a process and reads its peak RSS", async () => {
    const run = await coldRun(process.execPath, ["-e", "console.log('hi')"]);
    expect(run.outcome).toBe("ok");
    expect(run.stdout.trim()).toBe("hi");
    expect(run.ms).toBeGreaterThan(0);
    if (hasGnuTime) expect(run.rssMb).toBeGreaterThan(5);
  });

  it("reports a non-zero exit as failed, with its stderr", async () => {
    const run = await coldRun(process.execPath, ["-e", "console.error('boom'); process.exit(3)"]);
    expect(run).toMatchObject({ outcome: "failed", code: 3 });
    expect(run.stderr).toContain("boom");
  });

  it("accepts the exit codes it is told to", async () => {
    expect((await coldRun(process.execPath, ["-e", "process.exit(1)"], { okCodes: [0, 1] })).outcome).toBe("ok");
  });

  it("kills a command that runs past its timeout, children included", async () => {
    const child = "const c = require('node:child_process').spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']); console.log(c.pid); setTimeout(() => {}, 60000)";
    const t0 = Date.now();
    const run = await coldRun(process.execPath, ["-e", child], { timeoutMs: 1_000 });
    expect(run.outcome).toBe("timeout");
    expect(Date.now() - t0).toBeLessThan(10_000);
    const grandchild = Number(run.stdout.trim());
    expect(grandchild).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 100));
    // Killed: gone, or a zombie waiting for whoever adopted it to reap it.
    const state = (() => {
      try {
        return /^State:\s+(\S)/m.exec(readFileSync(`/proc/${grandchild}/status`, "utf8"))?.[1];
      } catch {
        return "gone";
      }
    })();
    expect(["gone", "Z", "X"]).toContain(state);
  });
});

describe("summarizeRuns (bench/lib/scale-report.ts)", () => {
  const ok = (ms: number, rssMb: number): RunRecord => ({ ms, rssMb, outcome: "ok", code: 0 });

  it("takes the median time and the highest peak RSS", () => {
    expect(summarizeRuns([ok(3, 10), ok(1, 30), ok(2, 20)])).toMatchObject({ status: "ok", ms: 2, rssMb: 30, runs: 3 });
  });

  it("marks a run that exited 0 without doing the work as failed, with why", () => {
    const s = summarizeRuns([ok(1, 10), { ...ok(2, 10), problem: "created 1 of 5 entries" }]);
    expect(s).toMatchObject({ status: "failed", note: "created 1 of 5 entries" });
  });

  it("reports a timeout", () => {
    expect(summarizeRuns([{ ms: 600_000, rssMb: null, outcome: "timeout", code: null }]).status).toBe("timeout");
  });

  it("gives the first index a row per size: no goal at 10k, peak RSS ≤ 1 GB at 100k", () => {
    const size = (entries: number, run: RunRecord): SizeMeasurements => ({ entries, baselines: { node: [], parse: [] }, rows: {}, warm: {}, initialIndex: { current: run } });
    const [small, large, over] = firstIndexRows([size(10_000, ok(20_000, 300)), size(100_000, ok(150_000, 920)), size(200_000, ok(300_000, 1_100))], "current");
    expect(small).toMatchObject({ metric: "first `cairn index` (no `.cairn/`) at 10k", goal: "—", pass: null, baseline: "500 entries/s" });
    expect(large).toMatchObject({ goal: "peak RSS ≤ 1 GB", measured: "150 s, peak 920 MB (1 run)", pass: true });
    expect(over).toMatchObject({ pass: false });
  });
});
