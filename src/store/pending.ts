/**
 * `knowledge/.pending/`: the intent records of changes in progress and the per-entry locks that
 * serialise them (see src/lifecycle/change.ts for the protocol). An intent is written atomically
 * and fsync'd before the change touches any entry, and deleted after its last step.
 * This module only stores and lists records; what a record means is the caller's business.
 */
import { readdir, readFile, rm } from "node:fs/promises";
import path from "node:path";
import { isEntryId } from "../entry/id.js";
import { CairnError } from "../errors.js";
import { writeFileAtomic } from "./atomic.js";
import { assertContained } from "./contain.js";
import type { Layout } from "./layout.js";
import { acquireLock, type Release } from "./lock.js";
import { pidIsDead } from "./owner.js";

/** `knowledge/.pending/`. */
export function pendingDir(layout: Layout): string {
  return path.join(layout.knowledge, ".pending");
}

/** A stored intent: its file name's key and its parsed JSON (unvalidated). */
export type StoredIntent = { key: string; file: string; value: unknown };

/** Wait at most this long for another process's change to the same entry. */
const ENTRY_LOCK_WAIT_MS = 10_000;

/** Serialise changes to one entry: `knowledge/.pending/<key>.lock` (a dead holder's lock is broken at once). */
export function lockEntry(layout: Layout, key: string, options: { wait?: boolean; onWarning?: (message: string) => void } = {}): Promise<Release> {
  return acquireLock(pendingDir(layout), key, { root: layout.root, wait: options.wait === false ? false : ENTRY_LOCK_WAIT_MS, purpose: `entry ${key}`, ...(options.onWarning ? { onWarning: options.onWarning } : {}) });
}

/** Write the intent for `key` (atomic, fsync'd); replaces a previous one. */
export async function writeIntent(layout: Layout, key: string, value: unknown): Promise<void> {
  const file = intentFile(layout, key);
  await assertContained(layout.root, file, "record a pending change");
  await writeFileAtomic(file, `${JSON.stringify(value)}\n`);
}

/** The intent for `key`, or undefined when there is none. */
export async function readIntent(layout: Layout, key: string): Promise<StoredIntent | undefined> {
  const file = intentFile(layout, key);
  await assertContained(layout.root, file, "read a pending change");
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new CairnError("IO", `cannot read ${file}: ${(error as Error).message}`, { cause: error });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined; // torn or hand-edited: the caller reports it
  }
  return { key, file, value };
}

/** Delete the intent for `key` (no error when it is already gone). */
export async function removeIntent(layout: Layout, key: string): Promise<void> {
  await rm(intentFile(layout, key), { force: true });
}

/** Keys of every stored intent, sorted. Empty when the directory does not exist (the common case: one readdir). */
export async function listIntentKeys(layout: Layout): Promise<string[]> {
  const dir = pendingDir(layout);
  await assertContained(layout.root, dir, "read pending changes");
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return [];
    throw new CairnError("IO", `cannot list ${dir}: ${(error as Error).message}`, { cause: error });
  }
  return names.filter((n) => n.endsWith(".json") && !n.startsWith(".")).map((n) => n.slice(0, -".json".length)).sort();
}

/** Temp files a killed writer left: `.name.<pid>.<12 hex>.tmp` (atomic writes) and `name.<pid>.<16 hex>.tmp` (locks). */
const LEFTOVER = /^(?:\..+\.(\d+)\.[0-9a-f]{12}|.+\.lock\.(\d+)\.[0-9a-f]{16})\.tmp$/;

/** Remove temp files left in `dirs` by processes that are no longer running; returns how many. */
export async function removeLeftovers(layout: Layout, dirs: readonly string[]): Promise<number> {
  let removed = 0;
  for (const dir of dirs) {
    await assertContained(layout.root, dir, "clean up temp files");
    const names = await readdir(dir).catch(() => [] as string[]);
    for (const name of names) {
      const match = LEFTOVER.exec(name);
      const pid = Number(match?.[1] ?? match?.[2]);
      if (!match || !pidIsDead(pid)) continue;
      await rm(path.join(dir, name), { force: true });
      removed++;
    }
  }
  return removed;
}

function intentFile(layout: Layout, key: string): string {
  if (!isEntryId(key)) {
    throw new CairnError("USAGE", `"${key}" cannot name a pending change; expected an entry id such as auth-middleware-swallows-ctx-cancel`);
  }
  return path.join(pendingDir(layout), `${key}.json`);
}
