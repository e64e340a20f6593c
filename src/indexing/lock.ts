/** The writer lock of the search index, `.cairn/index.lock` (see src/store/lock.ts for how stale locks are broken). */
import { acquireLock, type LockOptions, type Release } from "../store/lock.js";

export type { LockOptions, Release } from "../store/lock.js";

/** One writer of `.cairn/` at a time: `<cacheDir>/index.lock`. */
export function acquireIndexLock(cacheDir: string, options: LockOptions = {}): Promise<Release> {
  return acquireLock(cacheDir, "index", options);
}
