/** One writer at a time for `.cairn/` (proper-lockfile: mkdir-based, stale locks from crashed processes expire). */
import { mkdir } from "node:fs/promises";
import lockfile from "proper-lockfile";
import { CairnError } from "../errors.js";

export type Release = () => Promise<void>;

export async function acquireIndexLock(cacheDir: string, options: { wait?: boolean } = {}): Promise<Release> {
  await mkdir(cacheDir, { recursive: true });
  try {
    return await lockfile.lock(cacheDir, {
      lockfilePath: `${cacheDir}/write.lock`,
      stale: 30_000,
      update: 5_000,
      retries: options.wait ? { retries: 60, minTimeout: 100, maxTimeout: 1_000 } : 0,
      realpath: false,
      // If the lock directory disappears (the cache was deleted), the next writer simply re-creates it;
      // throwing from a timer here would crash the host process.
      onCompromised: () => {},
    });
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === "ELOCKED") {
      throw new CairnError("LOCKED", `another cairn process (watch or index) is updating ${cacheDir}; wait for it or stop it, then retry`, { cause });
    }
    throw new CairnError("IO", `cannot lock ${cacheDir}: ${(cause as Error).message}`, { cause });
  }
}
