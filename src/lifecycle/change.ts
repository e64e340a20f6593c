/**
 * Crash-safe, idempotent changes to entries: archive, restore, supersede, retract, confirm.
 *
 * Protocol — plan, log, apply, clear:
 *   1. The caller plans the change as steps, each idempotent ("make it so"): edit an entry's
 *      frontmatter, rewrite an entry's whole text (`check --fix`: from the text it was planned on,
 *      named by its hash), move an entry (editing it on the way), delete one, append events (each
 *      with a fixed eventId).
 *   2. Lock the entry (`knowledge/.pending/<key>.lock`, one change per entry at a time; the lock
 *      of a dead process is broken at once) and finish any change left there by a crash.
 *   3. Check the preconditions against the files: if another process made the change since it
 *      was planned, nothing is done ("stale").
 *   4. Log the steps in `knowledge/.pending/<key>.json` (atomic, fsync'd), apply them in order,
 *      delete the log, release the lock.
 *
 * Repair (`repairPendingChanges`, run first by every mutating command) takes each logged change
 * whose lock is free (its process died) and applies its steps again from the first:
 *   - edit: applied when the file exists (setting or removing a key twice changes nothing);
 *   - rewrite: the new text is written when the file still holds the text it was planned on; a file
 *     that already holds the new text counts as written; any other file (gone, or edited by hand
 *     since the crash) is a conflict: it is left as it is, and neither it nor the change's events
 *     are written;
 *   - move: source present → the edited copy is written to the target without clobbering (a
 *     target identical to it, left by the crash, counts as written), then the source is deleted;
 *     source gone and target present → done; a target that differs from the edited source is a
 *     conflict: both files are kept, the log is dropped and a warning says so;
 *   - delete: unlink when present;
 *   - events: appended unless the ledger already holds their eventIds.
 * So after kill -9 at any point, the next command completes the change: never an entry in both
 * knowledge/ and knowledge/archive/, never a lost file, never a missing or doubled event.
 * Only changes logged on this host, in this very directory, are repaired: each log carries the seal of
 * `knowledge/.pending/` (host, real path, inode and birth time: store/cache-seal.ts), which a log brought
 * by a commit, a tarball or a copy cannot predict, whatever host and pid it names. A log git tracks is
 * refused with its own message. Such a log is reported, never acted on; a change to its entry replaces it.
 */
import { createHash } from "node:crypto";
import os from "node:os";
import path from "node:path";
import { lintCacheDir } from "../check/lint-cache.js";
import * as z from "zod";
import { isEntryFileName } from "../store/files.js";
import { CairnError, isCairnError } from "../errors.js";
import { appendEvents, readLedger, type NewEvent } from "../ledger/index.js";
import { newEventId } from "../ledger/id.js";
import { relativePath, type Layout } from "../store/layout.js";
import { createEntryFile, deleteEntryFile, editEntryFile, editedText, entryExists, entryPath, readEntryText, writeEntryFile } from "../store/mutate.js";
import { currentOwner, liveness } from "../store/owner.js";
import { listIntentKeys, lockEntry, pendingDir, readIntent, removeIntent, removeLeftovers, writeIntent, type StoredIntent } from "../store/pending.js";
import { cacheSeal } from "../store/cache-seal.js";
import { requireKnowledgeDir } from "../store/require.js";
import { isTrackedByGit } from "../store/tracked.js";
import { editFrontmatter, type FrontmatterEdit } from "../entry/edit.js";

/**
 * Appends events to the ledger. `now`, when present, is the knowledge base's clock: a change stamps
 * its events' time and eventId with it when it is applied (simulations run on their own clock).
 */
export type AppendEvents = ((events: NewEvent[]) => Promise<unknown>) & {
  now?: () => Date;
  /** The time to stamp new events with (the clock, or just after the ledger's latest event when the clock is behind it). */
  stampTime?: () => Promise<Date>;
  /**
   * The events as this append would write them (actor, origin, anchor fingerprints): a change's log holds them so, and a
   * repair that finishes it appends them whole (it appended them bare: `history` showed no actor).
   */
  prepare?: (events: NewEvent[]) => Promise<NewEvent[]>;
};

/** One idempotent step. Paths are repository-relative entry paths (`knowledge/x.md`, `knowledge/archive/x.md`). */
export type ChangeStep =
  | { kind: "edit"; path: string; edits: FrontmatterEdit[] }
  /** Replace the whole text of `path`, planned on the text whose `textHash` is `before`. */
  | { kind: "rewrite"; path: string; before: string; text: string }
  | { kind: "move"; from: string; to: string; edits: FrontmatterEdit[] }
  | { kind: "delete"; path: string }
  /** Create `path` holding `text` (never over another file). */
  | { kind: "create"; path: string; text: string }
  | { kind: "events"; events: NewEvent[] };

/** A planned change: `key` (an entry id) names its lock and log. */
export type Change = { key: string; steps: ChangeStep[] };

/** `applied`; or `stale` when the files no longer match the plan (`done`: every move had already been made). */
export type ChangeOutcome = { kind: "applied" } | { kind: "stale"; reason: string; done: boolean };

export type RepairReport = { completed: string[]; warnings: string[] };

const value = z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]);
const edits = z.array(z.discriminatedUnion("op", [z.object({ op: z.literal("set"), key: z.string().min(1), value }), z.object({ op: z.literal("remove"), key: z.string().min(1) })]));
const intentSchema = z.object({
  v: z.literal(1),
  key: z.string(),
  owner: z.object({ pid: z.number().int(), host: z.string(), start: z.string().optional(), ns: z.string().optional() }),
  seal: z.string().optional(),
  created: z.string(),
  steps: z.array(
    z.discriminatedUnion("kind", [
      z.object({ kind: z.literal("edit"), path: z.string(), edits }),
      z.object({ kind: z.literal("rewrite"), path: z.string(), before: z.string(), text: z.string() }),
      z.object({ kind: z.literal("move"), from: z.string(), to: z.string(), edits }),
      z.object({ kind: z.literal("delete"), path: z.string() }),
      z.object({ kind: z.literal("create"), path: z.string(), text: z.string() }),
      z.object({ kind: z.literal("events"), events: z.array(z.looseObject({ type: z.string(), eventId: z.string(), time: z.string() })) }),
    ]),
  ),
});

/** Apply `change` crash-safely (see the protocol above). Throws CairnError on I/O errors and conflicts; the log then stays for the next repair. */
export async function applyChange(layout: Layout, change: Change, append: AppendEvents): Promise<ChangeOutcome> {
  for (const step of change.steps) checkPaths(layout, step);
  // Its lock and log live in knowledge/.pending/, its files in knowledge/: created on the way, they made a half
  // layout of a root whose knowledge directory was removed under a long-lived server.
  await requireKnowledgeDir(layout);
  const release = await lockEntry(layout, change.key);
  try {
    // Holding the lock, any log for this entry is a change whose process died or failed: finish it first.
    const left = await readIntent(layout, change.key);
    if (left) await complete(layout, left, { completed: [], warnings: [] });
    const unmet = await precondition(layout, change.steps);
    if (unmet) return { kind: "stale", ...unmet };
    // Events get their time and a fixed eventId now, before the log is written: a repair appends exactly these.
    const now = (await append.stampTime?.()) ?? append.now?.() ?? new Date();
    const prepare = append.prepare ?? (async (events: NewEvent[]) => events);
    const steps = await Promise.all(change.steps.map(async (step) => (step.kind === "events" ? { ...step, events: await prepare(step.events.map((e) => stamp(e, now))) } : step)));
    // The seal of knowledge/.pending/ as this process finds it (host, real path, inode, birth time): a log that came
    // any other way than being written here (a commit, a tarball, a copy) cannot carry it, whatever host it names.
    const intent = { v: 1, key: change.key, owner: currentOwner(), seal: cacheSeal(pendingDir(layout)), created: now.toISOString(), steps };
    await writeIntent(layout, change.key, intent);
    try {
      await run(layout, steps, append);
    } catch (error) {
      // A conflict cannot be finished later (both files are kept, the caller is told); any other
      // failure leaves the log for the next command's repair, which completes the change.
      if (isCairnError(error) && error.code === "CONFLICT") await removeIntent(layout, change.key);
      throw error;
    }
    await removeIntent(layout, change.key);
    return { kind: "applied" };
  } finally {
    await release();
  }
}

/** Finish every change a dead process left in `knowledge/.pending/` (see the protocol above). Never throws for one bad log: it becomes a warning. */
export async function repairPendingChanges(layout: Layout, options: { /** Also remove temp files killed writers left (lists the knowledge dir). Default true. */ leftovers?: boolean } = {}): Promise<RepairReport> {
  const report: RepairReport = { completed: [], warnings: [] };
  const keys = await listIntentKeys(layout);
  // Temp files of dead writers are garbage nothing reads: swept while the command goes on (listing a directory of
  // 100k entries took ~0.4 s of a `confirm`); a CLI process still finishes the sweep before it exits.
  if (options.leftovers !== false) void removeLeftovers(layout, [layout.knowledge, layout.archive, pendingDir(layout), layout.cache, lintCacheDir(layout.cache)]).catch(() => 0);
  for (const key of keys) {
    let release: (() => Promise<void>) | undefined;
    try {
      release = await lockEntry(layout, key, { wait: false, onWarning: (message) => report.warnings.push(message) });
    } catch (error) {
      if (isCairnError(error) && error.code === "LOCKED") continue; // a live process is applying it
      report.warnings.push(`cannot repair the pending change of ${key}: ${(error as Error).message}`);
      continue;
    }
    try {
      const stored = await readIntent(layout, key);
      if (stored) await complete(layout, stored, report);
    } catch (error) {
      report.warnings.push(`could not finish the interrupted change of ${key} (${(error as Error).message}); it will be retried by the next command`);
    } finally {
      await release();
    }
  }
  return report;
}

/** Apply a stored log again from its first step, then delete it. */
async function complete(layout: Layout, stored: StoredIntent, report: RepairReport): Promise<void> {
  const rel = relativePath(layout, stored.file);
  const parsed = intentSchema.safeParse(stored.value);
  if (!parsed.success || parsed.data.key !== stored.key) {
    report.warnings.push(`${rel} is not a pending change cairn can read; it was left alone — delete it if no cairn command is running`);
    return;
  }
  const intent = parsed.data;
  if (await isTrackedByGit(layout.root, stored.file)) {
    report.warnings.push(`${rel} is committed to git: a change log is local to the process that wrote it, so this one came in a commit and is not applied — remove it (git rm ${rel})`);
    return;
  }
  if (intent.owner.host === os.hostname() && (intent.seal === undefined || intent.seal !== cacheSeal(pendingDir(layout)))) {
    report.warnings.push(`${rel} was not written in this directory (a commit, a tarball or a copy brought it, or an older cairn wrote it); it is not applied — delete it, and check knowledge/ for an entry in both knowledge/ and knowledge/archive/ (cairn check)`);
    return;
  }
  if (intent.owner.host !== os.hostname()) {
    report.warnings.push(`${rel} is a change begun on another host (${intent.owner.host}); it is not applied here — delete it, and check knowledge/ for an entry in both knowledge/ and knowledge/archive/ (cairn check)`);
    return;
  }
  try {
    for (const step of intent.steps as ChangeStep[]) checkPaths(layout, step);
  } catch (error) {
    report.warnings.push(`${rel} was left alone: ${(error as Error).message} — delete it`);
    return;
  }
  try {
    await run(layout, intent.steps as ChangeStep[], (events) => appendMissing(layout, events));
  } catch (error) {
    // A conflict, or an entry whose frontmatter cannot be edited (written by an older cairn, or edited by hand since):
    // retrying would fail the same way in every later command, so the log is dropped and the warning says what.
    if (!(isCairnError(error) && (error.code === "CONFLICT" || error.code === "INVALID"))) throw error;
    await removeIntent(layout, stored.key);
    report.warnings.push(`an interrupted change of ${stored.key} cannot be finished: ${error.message}`);
    return;
  }
  await removeIntent(layout, stored.key);
  // A process that is gone was killed, or stopped on an error it could not get past (a full disk); one still running failed.
  const who = liveness(intent.owner) === "dead" ? `process ${intent.owner.pid} was killed or stopped on an error` : `process ${intent.owner.pid} failed`;
  report.completed.push(stored.key);
  report.warnings.push(`finished the change of ${stored.key} begun at ${intent.created} (${who} before completing it)`);
}

/** Run steps in order; each is idempotent. */
async function run(layout: Layout, steps: readonly ChangeStep[], appendEventsOf: (events: NewEvent[]) => Promise<unknown>): Promise<void> {
  for (const step of steps) {
    switch (step.kind) {
      case "edit": {
        const abs = entryPath(layout, step.path);
        if (await entryExists(layout, abs)) await editEntryFile(layout, abs, step.edits);
        break;
      }
      case "rewrite":
        await rewrite(layout, step);
        break;
      case "move":
        await move(layout, step);
        break;
      case "delete":
        await deleteEntryFile(layout, entryPath(layout, step.path));
        break;
      case "create":
        await create(layout, step);
        break;
      case "events":
        if (step.events.length) await appendEventsOf(step.events);
        break;
    }
  }
}

/** The hash a `rewrite` step names the text it was planned on by. */
export function textHash(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** Make `path` hold the step's text, when it holds the text the step was planned on (or the new text already). */
async function rewrite(layout: Layout, step: Extract<ChangeStep, { kind: "rewrite" }>): Promise<void> {
  const abs = entryPath(layout, step.path);
  const current = await readEntryText(layout, abs);
  if (current === step.text) return;
  if (current === undefined || textHash(current) !== step.before) {
    throw new CairnError("CONFLICT", `${step.path} was ${current === undefined ? "moved or removed" : "edited"} since the change was planned; it was left as it is`);
  }
  await writeEntryFile(layout, abs, step.text);
}

/** Make `path` hold the step's text: created, or already there (a repair); another file there is a conflict, and is kept. */
async function create(layout: Layout, step: Extract<ChangeStep, { kind: "create" }>): Promise<void> {
  const abs = entryPath(layout, step.path);
  try {
    await createEntryFile(layout, abs, step.text);
  } catch (error) {
    if (!(isCairnError(error) && error.code === "CONFLICT")) throw error;
    if ((await readEntryText(layout, abs)) !== step.text) throw new CairnError("CONFLICT", `${step.path} already exists and is another file; it was kept`, { cause: error });
  }
}

/** Make `to` hold the edited `from`, then remove `from`; never clobbers a different `to`. */
async function move(layout: Layout, step: Extract<ChangeStep, { kind: "move" }>): Promise<void> {
  const from = entryPath(layout, step.from);
  const to = entryPath(layout, step.to);
  let expected = await editedText(layout, from, step.edits);
  if (expected === undefined) return; // source gone: moved already (or deleted by hand; nothing to recreate)
  try {
    await createEntryFile(layout, to, expected);
  } catch (error) {
    if (!(isCairnError(error) && error.code === "CONFLICT")) throw error;
    if ((await readEntryText(layout, to)) !== expected) {
      throw new CairnError("CONFLICT", `${step.to} already exists and differs from ${step.from}; both were kept — compare them, keep one and delete the other`, { cause: error });
    }
  }
  // A save of `from` while it was copied is copied too before `from` goes (it was deleted with the save in it).
  for (let attempt = 1; ; attempt++) {
    const now = await editedText(layout, from, step.edits);
    if (now === undefined) return; // removed meanwhile: `to` holds what it held
    if (now === expected) break;
    if (attempt > MOVE_ATTEMPTS) throw new CairnError("CONFLICT", `${step.from} kept changing while it was moved to ${step.to}; both were kept — keep the newer one and delete the other`);
    await writeEntryFile(layout, to, now);
    expected = now;
  }
  await deleteEntryFile(layout, from);
}

/** Copies of a source saved again while it is moved. */
const MOVE_ATTEMPTS = 5;

/** Give an event its time and a fixed eventId (kept when already set). */
function stamp(event: NewEvent, now: Date): NewEvent {
  return { ...event, time: event.time ?? now.toISOString(), eventId: event.eventId ?? newEventId(now.getTime()) } as NewEvent;
}

/** Events of a log whose eventIds the ledger does not hold yet (a log's events are stamped, see applyChange). */
async function appendMissing(layout: Layout, events: readonly NewEvent[]): Promise<void> {
  const { events: written } = await readLedger(layout.ledger, { root: layout.root });
  const have = new Set(written.map((e) => e.eventId));
  const missing = events.filter((e) => e.eventId === undefined || !have.has(e.eventId));
  if (missing.length) await appendEvents(layout.ledger, missing, { root: layout.root });
}

/** Why the planned steps no longer fit the files, or undefined when they do. */
async function precondition(layout: Layout, steps: readonly ChangeStep[]): Promise<{ reason: string; done: boolean } | undefined> {
  const exists = (rel: string) => entryExists(layout, entryPath(layout, rel));
  let done = true;
  const reasons: string[] = [];
  for (const step of steps) {
    if (step.kind === "move") {
      const [source, target] = [await exists(step.from), await exists(step.to)];
      if (source && !target) {
        const refused = await uneditable(layout, step.from, step.edits);
        if (refused === undefined) continue;
        reasons.push(refused);
        done = false;
        continue;
      }
      reasons.push(!source && target ? `${step.from} was already moved to ${step.to}` : source ? `${step.to} already exists` : `${step.from} no longer exists`);
      if (source || !target) done = false;
    } else if (step.kind === "rewrite") {
      const current = await readEntryText(layout, entryPath(layout, step.path));
      if (current !== undefined && textHash(current) === step.before) continue;
      reasons.push(current === undefined ? `${step.path} no longer exists (moved or deleted by another process)` : `${step.path} was edited by another process since it was read`);
      done = false;
    } else if (step.kind === "create") {
      // The same text already there: created by an interrupted run of this very change (the step accepts it).
      if (!(await exists(step.path)) || (await readEntryText(layout, entryPath(layout, step.path))) === step.text) continue;
      reasons.push(`${step.path} already exists`);
      done = false;
    } else if (step.kind === "edit" || step.kind === "delete") {
      if (await exists(step.path)) {
        const refused = step.kind === "edit" ? await uneditable(layout, step.path, step.edits) : undefined;
        if (refused === undefined) continue;
        reasons.push(refused);
        done = false;
        continue;
      }
      reasons.push(`${step.path} no longer exists (moved or deleted by another process)`);
      done = false;
    }
  }
  return reasons.length ? { reason: reasons.join("; "), done } : undefined;
}

/**
 * Why `edits` cannot be made to the entry at `rel` (its frontmatter is laid out in a way the surgical editor refuses:
 * `check` reports it as frontmatter-not-editable), or undefined when they can. Found before the change is logged: a
 * logged change that can never be finished would be retried, and fail, by every later command.
 */
async function uneditable(layout: Layout, rel: string, edits: readonly FrontmatterEdit[]): Promise<string | undefined> {
  if (!edits.length) return undefined;
  const text = await readEntryText(layout, entryPath(layout, rel));
  if (text === undefined) return undefined;
  const result = editFrontmatter(text, edits);
  return result.ok ? undefined : `${rel} cannot be edited (${result.reason}); cairn check reports it as frontmatter-not-editable`;
}

/** Steps may only touch entry files directly in the knowledge dir or its archive (a log is a file in the repository: never trust it further). */
function checkPaths(layout: Layout, step: ChangeStep): void {
  const paths = step.kind === "move" ? [step.from, step.to] : step.kind === "events" ? [] : [step.path];
  for (const rel of paths) {
    const abs = path.resolve(layout.root, rel);
    const dir = path.dirname(abs);
    if ((dir !== layout.knowledge && dir !== layout.archive) || !isEntryFileName(path.basename(abs))) {
      throw new CairnError("UNSAFE_PATH", `refusing a change to ${rel}: only entry files in ${relativePath(layout, layout.knowledge)}/ and its archive/ can be changed`);
    }
  }
}
