/**
 * What the test helpers start or create (servers, clients, temp directories), released after every test.
 *
 * The helpers' modules are shared by all the test files of a worker (vitest.config.ts: `isolate: false`), so a hook a
 * helper registered when it was imported ran only for the first file that imported it: after that, MCP servers, LSP
 * clients and temp directories of every later file were never released (35 `cairn mcp --http` processes were still
 * running after five suite runs, slowing each later run). A helper registers its release function here once; the
 * setup file (test/setup/release.ts, run for every test file) calls them after each test: processes first, then files.
 */
type Stage = "processes" | "files";

const releases: Record<Stage, Array<() => Promise<unknown>>> = { processes: [], files: [] };

/** Call `release` after every test of every file from now on (it must be cheap when it has nothing to do). */
export function releaseAfterEachTest(stage: Stage, release: () => Promise<unknown>): void {
  releases[stage].push(release);
}

/** Run every registered release: the processes', then the files'. */
export async function releaseAll(): Promise<void> {
  for (const stage of ["processes", "files"] as const) await Promise.all(releases[stage].map((release) => release()));
}
