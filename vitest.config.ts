import { readdirSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

/**
 * Test files that replace a module with `vi.mock` need a fresh module graph: in a worker that already imported the
 * real module their mock would not apply. Every other file shares its worker's modules (`isolate: false`): the
 * suite then imports src/ and loads the embedding model once per worker rather than once per file, which took the
 * suite from 325 s to 235 s on this 2-core machine. Found by reading the files, so a new mocking test is isolated
 * without anyone remembering to list it.
 */
const mocking = readdirSync("test", { recursive: true, encoding: "utf8" })
  .filter((file) => file.endsWith(".test.ts"))
  .map((file) => `test/${file.split("\\").join("/")}`)
  .filter((file) => /\bvi\.(?:do)?mock\(/.test(readFileSync(file, "utf8")));

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Releases what the test helpers start (servers, clients, temp directories) after every test of every file.
    setupFiles: ["test/setup/release.ts"],
    // Vitest's default leaves a core free (one worker on a 2-core machine); most of the suite waits on child
    // processes, git and fsync, so a worker per core runs it in 186 s instead of 308 s here.
    maxWorkers: availableParallelism(),
    projects: [
      { extends: true, test: { name: "shared", include: ["test/**/*.test.ts"], exclude: mocking, isolate: false } },
      { extends: true, test: { name: "isolated", include: mocking, isolate: true } },
    ],
  },
});
