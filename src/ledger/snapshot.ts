/**
 * The folded ledger kept in `.cairn/` (derived, gitignored, deletable): the state (state-codec.ts)
 * and, per ledger file, the prefix it covers (tail.ts). A new process reads it and folds only what
 * was appended since, instead of parsing every line. The file is one JSON header line — format,
 * versions, coverage, where the state's sections are and the body's sha256 — then the state's body.
 * Written atomically, never through a link leaving the repository; a missing, damaged (hash),
 * foreign or other-version snapshot is ignored (and rebuilt by the caller). It carries the seal of
 * its `.cairn/` (store/cache-seal.ts), like the index and the lint results: a snapshot that came in
 * a commit or a copy — whose state could claim confirmations no ledger line holds — is never read. Processes may race to
 * write it: each writes a complete, consistent snapshot and the last rename wins.
 */
import { mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import { writeFileAtomic } from "../store/atomic.js";
import { cacheSeal } from "../store/cache-seal.js";
import { assertContained, findEscape } from "../store/contain.js";
import { VERSION } from "../version.js";
import { LEDGER_SCHEMA_VERSION } from "./events.js";
import type { LedgerState } from "./state.js";
import { decodeState, encodeState, STATE_FORMAT } from "./state-codec.js";
import type { Coverage, StoredWarning } from "./tail.js";

/** The snapshot's file name in `.cairn/`. */
export const SNAPSHOT_FILE = "ledger-state.json";

/** The snapshot file in a derived-cache directory (`.cairn/`). */
export function snapshotFileIn(cacheDir: string): string {
  return path.join(cacheDir, SNAPSHOT_FILE);
}

const FORMAT = "cairn-ledger-state";

/** A duplicate-id warning (found when merging files), with the file it names. */
export type StoredDuplicate = StoredWarning & { name: string };

/** A folded ledger: the state, what it covers of each file, and the duplicate ids met on the way. */
export type Folded = { state: LedgerState; files: Map<string, Coverage>; duplicates: StoredDuplicate[] };

export type SnapshotOptions = {
  /** Repository root: no read or write through a link leaving it. Default: no check. */
  root?: string;
};

/** The ledger directory as the snapshot names it: relative to the snapshot's directory, so a moved clone keeps it. */
function ledgerName(file: string, ledgerDir: string): string {
  return path.relative(path.dirname(path.resolve(file)), path.resolve(ledgerDir)).split(path.sep).join("/");
}

/** The snapshot in `file` if it is one this build wrote for `ledgerDir`; undefined otherwise (never throws). */
export async function loadSnapshot(file: string, ledgerDir: string, options: SnapshotOptions = {}): Promise<Folded | undefined> {
  try {
    if (options.root !== undefined && (await findEscape(options.root, file))) return undefined;
    const bytes = await readFile(file);
    const newline = bytes.indexOf(0x0a);
    if (newline < 0) return undefined;
    const value = JSON.parse(bytes.toString("utf8", 0, newline)) as Record<string, unknown>;
    // Another cairn may check event lines differently (a field it now refuses): its fold is not this build's.
    if (value.format !== FORMAT || value.version !== STATE_FORMAT || value.schema !== LEDGER_SCHEMA_VERSION || value.cairn !== VERSION) return undefined;
    if (value.ledger !== ledgerName(file, ledgerDir)) return undefined;
    if (value.seal === undefined || value.seal !== cacheSeal(path.dirname(file))) return undefined;
    if (!Array.isArray(value.files) || !value.files.every(isCoverage) || !Array.isArray(value.duplicates) || !value.duplicates.every(isDuplicate)) return undefined;
    const decoded = decodeState(value.state, bytes.subarray(newline + 1));
    if ("problem" in decoded) return undefined;
    return { state: decoded.state, files: new Map((value.files as Coverage[]).map((c) => [c.name, c])), duplicates: value.duplicates as StoredDuplicate[] };
  } catch {
    return undefined;
  }
}

/** Write `folded` to `file` atomically (creating its directory). Throws when it cannot (the caller decides whether that matters). */
export async function saveSnapshot(file: string, ledgerDir: string, folded: Folded, options: SnapshotOptions = {}): Promise<void> {
  if (options.root !== undefined) await assertContained(options.root, file, "write the ledger snapshot");
  await mkdir(path.dirname(file), { recursive: true });
  const { header, body } = encodeState(folded.state);
  const value = {
    format: FORMAT,
    version: STATE_FORMAT,
    schema: LEDGER_SCHEMA_VERSION,
    cairn: VERSION,
    ledger: ledgerName(file, ledgerDir),
    seal: cacheSeal(path.dirname(file)),
    files: [...folded.files.values()],
    duplicates: folded.duplicates,
    state: header,
  };
  await writeFileAtomic(file, Buffer.concat([Buffer.from(`${JSON.stringify(value)}\n`), body]));
}

const isString = (v: unknown): v is string => typeof v === "string";
const isCount = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v >= 0;

function isWarning(v: unknown): v is StoredWarning {
  const w = v as StoredWarning;
  return typeof v === "object" && v !== null && isCount(w.line) && isString(w.rule) && isString(w.message);
}

function isDuplicate(v: unknown): v is StoredDuplicate {
  return isWarning(v) && isString((v as StoredDuplicate).name);
}

function isCoverage(v: unknown): v is Coverage {
  const c = v as Coverage;
  return (
    typeof v === "object" &&
    v !== null &&
    [c.name, c.dev, c.ino, c.mtimeNs, c.window].every(isString) &&
    [c.size, c.offset, c.lines].every(isCount) &&
    c.offset <= c.size &&
    typeof c.open === "boolean" &&
    Array.isArray(c.warnings) &&
    c.warnings.every(isWarning) &&
    Array.isArray(c.pending) &&
    c.pending.every(isWarning)
  );
}
