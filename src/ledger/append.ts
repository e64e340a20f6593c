/** Append events to the ledger: complete JSON lines, one `write` per chunk, `O_APPEND`. */
import { constants } from "node:fs";
import { mkdir, open } from "node:fs/promises";
import path from "node:path";
import { CairnError, isCairnError } from "../errors.js";
import { assertContained } from "../store/contain.js";
import { LEDGER_SCHEMA_VERSION, type LedgerEvent } from "./events.js";
import { newEventId } from "./id.js";
import { canonicalTime, checkEvent } from "./validate.js";

type Fill<E> = E extends unknown ? Omit<E, "v" | "eventId" | "time"> & { time?: string | Date; eventId?: string } : never;

/**
 * An event as a caller writes it: `v` is filled in; `eventId` is generated unless given (a fixed id
 * makes a retried append idempotent: readers drop the repeated line); `time` defaults to now.
 */
export type NewEvent = Fill<LedgerEvent>;

/**
 * Largest single `write`. Appends of complete lines with `O_APPEND` to a local regular file do
 * not interleave with other writers; keeping each write well under 64 KiB also keeps it one
 * syscall on every file system we care about. A single line longer than this is written alone.
 */
export const MAX_WRITE_BYTES = 60 * 1024;

/** The file an event goes to: one file per UTC month, e.g. `2026-11.jsonl`. */
export function ledgerFileFor(time: string): string {
  return `${time.slice(0, 7)}.jsonl`;
}

function complete(input: NewEvent, index: number, now: Date): LedgerEvent {
  const rawTime = input.time instanceof Date ? input.time.toISOString() : (input.time ?? now.toISOString());
  const time = canonicalTime(rawTime);
  if (time === undefined) {
    throw new CairnError(
      "INVALID",
      `Ledger event ${index} has an invalid time ${JSON.stringify(input.time)}; expected an ISO timestamp such as 2026-11-03T09:15:00.000Z or a Date.`,
    );
  }
  const { time: _ignored, eventId: fixedId, ...rest } = input;
  const event = { v: LEDGER_SCHEMA_VERSION, eventId: fixedId ?? newEventId(Date.parse(time)), time, ...rest };
  const problem = checkEvent(event);
  if (problem !== undefined) {
    throw new CairnError("INVALID", `Ledger event ${index} (${JSON.stringify(input.type)}) is invalid: ${problem.message}.`);
  }
  return event as LedgerEvent;
}

/** Group lines into chunks of complete lines, each at most MAX_WRITE_BYTES unless one line is larger. */
function chunk(lines: string[]): Buffer[] {
  const chunks: Buffer[] = [];
  let current = "";
  let bytes = 0;
  for (const line of lines) {
    const size = Buffer.byteLength(line) + 1;
    if (bytes > 0 && bytes + size > MAX_WRITE_BYTES) {
      chunks.push(Buffer.from(current));
      current = "";
      bytes = 0;
    }
    current += line + "\n";
    bytes += size;
  }
  if (bytes > 0) chunks.push(Buffer.from(current));
  return chunks;
}

/** Append, never through a link: O_NOFOLLOW makes a ledger file that is a symbolic link fail with ELOOP. */
const APPEND_FLAGS = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0);

async function appendLines(file: string, lines: string[], root: string | undefined): Promise<void> {
  // A hostile commit can make `knowledge/.ledger/2026-11.jsonl` (or a directory above it) a link
  // to ~/.bashrc: refuse before opening, naming the link and its target.
  if (root !== undefined) await assertContained(root, file, "append to the ledger");
  // No attempt to repair a torn last line left by a crash: checking the last byte races with
  // writes in progress in other processes. The reader recovers an event glued to a fragment.
  const handle = await open(file, APPEND_FLAGS, 0o666).catch(async (error: NodeJS.ErrnoException) => {
    if (error.code === "ELOOP") {
      throw new CairnError("UNSAFE_PATH", `refusing to append to the ledger: ${file} is a symbolic link; ledger files must be regular files — replace the link with the file it points to`, { cause: error });
    }
    if (error.code !== "ENOENT") throw error;
    await mkdir(path.dirname(file), { recursive: true });
    return open(file, APPEND_FLAGS, 0o666);
  });
  try {
    for (const buffer of chunk(lines)) {
      let offset = 0;
      while (offset < buffer.length) {
        // Position null: plain write(2), which O_APPEND places at the end atomically.
        const { bytesWritten } = await handle.write(buffer, offset, buffer.length - offset, null);
        if (bytesWritten <= 0) throw new Error("write returned 0 bytes");
        offset += bytesWritten;
      }
    }
  } finally {
    await handle.close();
  }
}

export type AppendOptions = {
  /** Repository root: refuse (CairnError UNSAFE_PATH) to append through a link leaving it. Default: no check. */
  root?: string;
};

/**
 * Append `events` to the ledger in `ledgerDir` (created if missing). Fills `v`, `eventId` and
 * `time` (caller-provided `time` and `eventId` are kept, for imports, simulations and idempotent
 * retries). Validates every event before writing any. Returns the events as written.
 */
export async function appendEvents(ledgerDir: string, events: readonly NewEvent[], options: AppendOptions = {}): Promise<LedgerEvent[]> {
  if (events.length === 0) return [];
  const now = new Date();
  const completed = events.map((event, index) => complete(event, index, now));
  const byFile = new Map<string, string[]>();
  for (const event of completed) {
    const name = ledgerFileFor(event.time);
    const lines = byFile.get(name);
    const line = JSON.stringify(event);
    if (lines) lines.push(line);
    else byFile.set(name, [line]);
  }
  try {
    for (const [name, lines] of byFile) await appendLines(path.join(ledgerDir, name), lines, options.root);
  } catch (cause) {
    if (isCairnError(cause)) throw cause;
    throw new CairnError(
      "IO",
      `Cannot append ${completed.length} event(s) to the ledger in ${ledgerDir}: ${(cause as Error).message}. Check that the directory is writable.`,
      { cause },
    );
  }
  return completed;
}
