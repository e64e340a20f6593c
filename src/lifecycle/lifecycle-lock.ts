/**
 * The lifecycle lock (`.cairn/lifecycle`): one writer of entries and their events at a time across processes —
 * `record`, `compound`, `decay` and the manual commands (confirm, retract, restore, archive, set-status, supersede).
 * Each change also takes its entry's lock (src/lifecycle/change.ts); this one keeps a whole `record` (match, edit,
 * append, decay) from interleaving with a manual change to the same entries.
 */
import type { Layout } from "../store/layout.js";

/** Run `action` holding the lifecycle lock; `locked` false runs it directly (dry runs). Not re-entrant. `onWarning`: told of a committed lock file found in place (see src/store/lock.ts). */
export async function withLifecycleLock<T>(layout: Layout, locked: boolean, action: () => Promise<T>, onWarning?: (message: string) => void): Promise<T> {
  // A wrong root is an error before anything is created there (no .cairn/ for the lock).
  const { requireKnowledgeDir } = await import("../store/require.js");
  await requireKnowledgeDir(layout);
  if (!locked) return action();
  const { acquireIndexLock } = await import("../indexing/lock.js");
  const release = await acquireIndexLock(`${layout.cache}/lifecycle`, { wait: true, root: layout.root, purpose: "the lifecycle (record, decay, compound and the manual commands take turns)", ...(onWarning ? { onWarning } : {}) });
  try {
    return await action();
  } finally {
    await release().catch(() => {});
  }
}
