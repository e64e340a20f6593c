/** Command-line flags shared by the benches: `--quick` (or CAIRN_BENCH_QUICK=1) for smaller sizes. */

export type BenchArgs = {
  /** Smaller sizes for a fast smoke run. Default false. */
  quick: boolean;
  /** `--embedder JSON`: the embedder config to measure (as in cairn.config.json). Default: the bundled USE-lite. */
  embedder?: unknown;
};

export function benchArgs(argv: readonly string[] = process.argv.slice(2)): BenchArgs {
  const at = argv.indexOf("--embedder");
  let embedder: unknown;
  if (at >= 0) {
    const text = argv[at + 1] ?? "";
    try {
      embedder = JSON.parse(text);
    } catch (cause) {
      throw new Error(`--embedder expects the embedder config as JSON, e.g. '{"provider":"transformers","path":"models/all-MiniLM-L6-v2"}', got ${JSON.stringify(text)}`, { cause });
    }
  }
  return { quick: argv.includes("--quick") || process.env.CAIRN_BENCH_QUICK === "1", ...(embedder !== undefined ? { embedder } : {}) };
}

/** Log a progress line to stderr (stdout carries the tables). */
export function log(message: string): void {
  process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}
