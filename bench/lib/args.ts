/** Command-line flags shared by the benches: `--quick` (or CAIRN_BENCH_QUICK=1) for smaller sizes. */

export type BenchArgs = {
  /** Smaller sizes for a fast smoke run. Default false. */
  quick: boolean;
};

export function benchArgs(argv: readonly string[] = process.argv.slice(2)): BenchArgs {
  return { quick: argv.includes("--quick") || process.env.CAIRN_BENCH_QUICK === "1" };
}

/** Log a progress line to stderr (stdout carries the tables). */
export function log(message: string): void {
  process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}
