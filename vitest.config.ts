import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Vitest's default leaves a core free (one worker on a 2-core machine); most of the suite waits on child
    // processes, git and fsync, so a worker per core runs it in 186 s instead of 308 s here.
    maxWorkers: availableParallelism(),
  },
});
