/** Wall and CPU timing of async work; repeated sampling with warm-up. */
import { performance } from "node:perf_hooks";
import { summarize, type Summary } from "./stats.js";

export type Timed<T> = {
  /** Wall-clock milliseconds. */
  ms: number;
  /** CPU milliseconds of this process (user + system), which competing processes on the box inflate far less than wall time. */
  cpuMs: number;
  value: T;
};

export async function timed<T>(fn: () => Promise<T> | T): Promise<Timed<T>> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const value = await fn();
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return { ms, cpuMs: (cpu.user + cpu.system) / 1000, value };
}

export type SampleOptions = {
  /** Measured iterations. Default 20. */
  iterations?: number;
  /** Unmeasured iterations first. Default 2. */
  warmup?: number;
};

/** Run `fn(i)` warm-up + iterations times in sequence; summarise the measured wall times. */
export async function sample(fn: (i: number) => Promise<unknown> | unknown, options: SampleOptions = {}): Promise<Summary & { samples: number[] }> {
  const iterations = options.iterations ?? 20;
  const warmup = options.warmup ?? 2;
  for (let i = 0; i < warmup; i++) await fn(-1 - i);
  const samples: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const t0 = performance.now();
    await fn(i);
    samples.push(performance.now() - t0);
  }
  return { ...summarize(samples), samples };
}

/** Median-of-k wall and CPU time of `fn` (each run timed separately). */
export async function bestOf<T>(k: number, fn: (i: number) => Promise<T> | T): Promise<{ ms: number; cpuMs: number; runs: Array<Timed<T>> }> {
  const runs: Array<Timed<T>> = [];
  for (let i = 0; i < k; i++) runs.push(await timed(() => fn(i)));
  const mid = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
  return { ms: mid(runs.map((r) => r.ms)), cpuMs: mid(runs.map((r) => r.cpuMs)), runs };
}
