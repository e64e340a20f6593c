/**
 * Advisory locks: one writer of the index at a time (`.cairn/index.lock`), one injection at a time
 * (`.cairn/inject.lock`), one change per entry (`knowledge/.pending/<id>.lock`). A lock is a file holding its owner (pid, hostname, process start time),
 * created atomically (written aside, then hard-linked into place), so it is never seen half-written.
 *
 * A lock whose owner is dead is broken at once: same host and the pid is gone, or the pid now
 * belongs to a process that started later. Owners on another host cannot be checked; their lock
 * is stale when its heartbeat (the file's mtime, touched every 10 s) is older than 60 s. A live
 * owner on this host is never overridden, however long it runs.
 *
 * Breaking is race-safe: the stale file is renamed to a unique name (only one process wins the
 * rename) and the winner checks it renamed the very file it judged (same inode) before deleting it.
 *
 * A lock file that git tracks, unchanged since the checkout wrote it, is no lock: it came in a commit (a pull request
 * can add `.cairn/inject-<agent and run>.lock`), and nothing in it can be trusted — host, pid, start time and
 * namespace are all forgeable (pid 1 on a self-hosted runner's known host name is always "alive"), and the checkout
 * gives it a fresh mtime, so the age bound kept it "held" for a minute: `inject` in a fresh clone gave its agent
 * nothing. It is broken like a stale one, with a warning. A real lock is always a file some cairn process wrote after
 * the checkout, so git sees it as untracked or as changed; git is asked only about a lock that would otherwise be
 * waited for, once per lock file (inode and token), so an uncontended lock costs nothing more.
 *
 * Replaces proper-lockfile, whose only staleness test is age: a lock left by a killed `index`
 * stalled the next one 15–26 s, and a stale inject lock stalled `inject` ~31 s.
 */
import { randomBytes } from "node:crypto";
import * as fs from "node:fs/promises";
import path from "node:path";
import { CairnError } from "../errors.js";
import { assertContained } from "./contain.js";
import { currentOwner, liveness, type Owner } from "./owner.js";
import { asCommitted } from "./tracked.js";

export type Release = () => Promise<void>;

export type LockOptions = {
  /** Wait for a live holder: false fails at once with CairnError "LOCKED", true waits up to 60 s, a number up to that many ms. Default false. */
  wait?: boolean | number;
  /** Repository root: refuse (UNSAFE_PATH) when the lock's directory is reached through a link leaving it. Default: no check. */
  root?: string;
  /** What the lock protects, for messages. Default "the search index". */
  purpose?: string;
  /** Told why a lock file was found in place and not honoured (git tracks it: it came in a commit). Default: not told. */
  onWarning?: (message: string) => void;
};

/** What a lock file holds. */
export type LockRecord = Owner & { token: string; time: string; command: string };

const DEFAULT_WAIT_MS = 60_000;
const HEARTBEAT_MS = 10_000;
/** A lock from another host (its owner cannot be checked) is stale when its heartbeat is older than this. */
export const FOREIGN_STALE_MS = 60_000;
/** A lock file that cannot be read as a record (written by a crash on a file system without hard links) is stale after this. */
const UNREADABLE_STALE_MS = 5_000;

/** Take `<dir>/<name>.lock`, breaking it at once when its holder is dead. */
export async function acquireLock(dir: string, name: string, options: LockOptions = {}): Promise<Release> {
  const purpose = options.purpose ?? "the search index";
  if (options.root) await assertContained(options.root, dir, `lock ${purpose}`);
  const file = path.join(dir, `${name}.lock`);
  const waitMs = options.wait === true ? DEFAULT_WAIT_MS : typeof options.wait === "number" ? options.wait : 0;
  const deadline = Date.now() + waitMs;
  const record: LockRecord = { ...currentOwner(), token: randomBytes(8).toString("hex"), time: new Date().toISOString(), command: commandLine() };
  try {
    await fs.mkdir(dir, { recursive: true });
  } catch (cause) {
    throw lockIoError(dir, dir, purpose, cause);
  }
  for (let attempt = 0; ; attempt++) {
    let holder: Held;
    try {
      if (await create(file, record)) return releaser(file, record);
      holder = await inspect(file);
      if (holder.kind === "gone") continue;
      if (holder.stale) {
        await breakStale(file, holder.ino);
        continue;
      }
      if (await committed(file, holder)) {
        options.onWarning?.(committedWarning(file, holder, options.root));
        await breakStale(file, holder.ino);
        continue;
      }
    } catch (cause) {
      throw lockIoError(dir, file, purpose, cause);
    }
    if (Date.now() >= deadline) {
      const who = holder.record ? `pid ${holder.record.pid}${holder.record.command ? ` (\`${holder.record.command}\`)` : ""}, since ${holder.record.time}` : "another process";
      throw new CairnError("LOCKED", `another cairn process (${who}) is using ${purpose} (${file}); wait for it or stop it, then retry`);
    }
    await sleep(Math.min(25 * 2 ** Math.min(attempt, 3), 200, Math.max(1, deadline - Date.now())));
  }
}

/** The live holder of `<dir>/<name>.lock` on this host, or undefined (no lock, a dead or foreign holder, unreadable). Never throws. */
export async function liveHolder(dir: string, name: string): Promise<LockRecord | undefined> {
  const file = path.join(dir, `${name}.lock`);
  const held = await inspect(file).catch(() => undefined);
  if (held?.kind !== "held" || held.stale || !held.record || liveness(held.record) !== "alive") return undefined;
  return (await committed(file, held)) ? undefined : held.record;
}

type Held = { kind: "gone" } | { kind: "held"; ino: bigint; stale: boolean; record?: LockRecord };

/** Create the lock file with `record` in it, atomically; false when it exists. */
async function create(file: string, record: LockRecord): Promise<boolean> {
  const temp = `${file}.${record.pid}.${record.token}.tmp`;
  try {
    await fs.writeFile(temp, JSON.stringify(record), { flag: "wx" });
  } catch (error) {
    // A write that fails part-way (a full disk) has created the file: it must not stay behind.
    await fs.rm(temp, { force: true }).catch(() => undefined);
    throw error;
  }
  try {
    await fs.link(temp, file);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return false;
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EOPNOTSUPP" && code !== "ENOSYS") throw error;
    // No hard links here: create exclusively and write; a reader may briefly see it empty (see UNREADABLE_STALE_MS).
    try {
      await fs.writeFile(file, JSON.stringify(record), { flag: "wx" });
      return true;
    } catch (inner) {
      if ((inner as NodeJS.ErrnoException).code === "EEXIST") return false;
      throw inner;
    }
  } finally {
    await fs.rm(temp, { force: true });
  }
}

/** Who holds the lock, and whether that holder is gone for good. */
async function inspect(file: string): Promise<Held> {
  let stats: import("node:fs").BigIntStats;
  let text: string;
  try {
    stats = await fs.stat(file, { bigint: true });
    text = await fs.readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { kind: "gone" };
    throw error;
  }
  const age = Date.now() - Number(stats.mtimeMs);
  const record = parseRecord(text);
  if (!record) return { kind: "held", ino: stats.ino, stale: age > UNREADABLE_STALE_MS };
  const state = liveness(record);
  const stale = state === "dead" || (state === "unknown" && age > FOREIGN_STALE_MS);
  return { kind: "held", ino: stats.ino, stale, record };
}

/** Remove a stale lock file, only if it is still the file judged stale (inode `ino`). */
async function breakStale(file: string, ino: bigint): Promise<void> {
  const aside = `${file}.stale.${process.pid}.${randomBytes(4).toString("hex")}`;
  try {
    await fs.rename(file, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return; // another process broke it first
    throw error;
  }
  const moved = await fs.stat(aside, { bigint: true }).catch(() => undefined);
  if (moved && moved.ino !== ino) {
    // Between judging and renaming, the stale lock was broken and re-taken by a live process: give it back.
    await fs.link(aside, file).catch(() => undefined);
  }
  await fs.rm(aside, { force: true });
}

/** Per lock file, the inode and token last found not to be a committed file: the same lock is not asked about twice. */
const written = new Map<string, string>();

/**
 * True when the held lock `file` is a file git tracks, as committed: it came in a checkout, not from a cairn process.
 * Asks git once per lock (inode and token); never for a lock of this process.
 */
async function committed(file: string, held: Extract<Held, { kind: "held" }>): Promise<boolean> {
  if (held.record && heldByThisProcess(held.record)) return false;
  const key = `${held.ino}:${held.record?.token ?? ""}`;
  if (written.get(file) === key) return false;
  if (await asCommitted(file)) return true;
  written.set(file, key);
  return false;
}

function committedWarning(file: string, held: Extract<Held, { kind: "held" }>, root: string | undefined): string {
  const rel = root ? path.relative(root, file).split(path.sep).join("/") : file;
  const dir = root ? path.relative(root, path.dirname(file)).split(path.sep).join("/") || "." : path.dirname(file);
  const claims = held.record ? ` (it names pid ${held.record.pid} on ${JSON.stringify(held.record.host)})` : "";
  return `${rel} is committed to git${claims}: a lock is local to the process that holds it, so this one came in a commit and was not honoured — it was removed from the working tree; remove it from git (git rm -r --cached ${dir}) and keep ${dir}/ in .gitignore`;
}

/** Tokens of the locks this process holds now (a record naming this pid may be a dead process's, the pid reused). */
const heldHere = new Set<string>();

/** True when `record` is a lock this process holds now. */
export function heldByThisProcess(record: Pick<LockRecord, "token">): boolean {
  return heldHere.has(record.token);
}

function releaser(file: string, record: LockRecord): Release {
  heldHere.add(record.token);
  const heartbeat = setInterval(() => {
    const now = new Date();
    fs.utimes(file, now, now).catch(() => undefined);
  }, HEARTBEAT_MS);
  heartbeat.unref();
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    heldHere.delete(record.token);
    clearInterval(heartbeat);
    // Remove the lock only while it is still ours (a cache deleted by hand may have been re-locked by another process).
    const text = await fs.readFile(file, "utf8").catch(() => undefined);
    if (text !== undefined && parseRecord(text)?.token === record.token) await fs.rm(file, { force: true });
  };
}

function parseRecord(text: string): LockRecord | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockRecord> | null;
    if (value && typeof value.pid === "number" && typeof value.host === "string" && typeof value.token === "string") return value as LockRecord;
  } catch {
    // unreadable: judged by age
  }
  return undefined;
}

/** The holder's command for messages, e.g. `cairn index --rebuild` (paths left out). */
function commandLine(): string {
  const args = process.argv.slice(2).filter((a) => !a.includes("/") && !a.includes("\\")).slice(0, 4);
  return ["cairn", ...args].join(" ").slice(0, 80);
}

function lockIoError(dir: string, file: string, purpose: string, cause: unknown): CairnError {
  const code = (cause as NodeJS.ErrnoException).code;
  if (code === "EEXIST" || code === "ENOTDIR") {
    const hint = `${dir} is a file, not a directory (or a path above it is); cairn keeps its derived index in .cairn/ — move that file away (the index is rebuilt from the entries)`;
    return new CairnError("USAGE", `cannot lock ${purpose}: ${hint}`, { cause });
  }
  return new CairnError("IO", `cannot lock ${purpose} (${file}): ${(cause as Error).message}; check that the directory is writable`, { cause });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
