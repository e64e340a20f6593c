/** Shape checks for ledger events, shared by append (caller input) and read (file lines). */
import { PROVENANCES } from "../entry/types.js";
import { LEDGER_SCHEMA_VERSION, type LedgerEvent } from "./events.js";

type Fields = Record<string, unknown>;
type Check = (value: unknown) => boolean;
/** One field of an event: its key, whether it must be present, its check and what the message says it must be. */
type FieldSpec = readonly [key: string, presence: "required" | "optional", ok: Check, expected: string];

const isString: Check = (value) => typeof value === "string" && value.length > 0;
const isStringArray: Check = (value) => Array.isArray(value) && value.every(isString);
const isAnyString: Check = (value) => typeof value === "string";
const isFiniteNumber: Check = (value) => typeof value === "number" && Number.isFinite(value);
const PROVENANCE_SET: ReadonlySet<string> = new Set(PROVENANCES);
const isProvenance: Check = (value) => typeof value === "string" && PROVENANCE_SET.has(value);

const STRING = "a non-empty string";
const FINGERPRINTS = "an array of {path, start, end, hash} anchor fingerprints";

const isLine: Check = (value) => typeof value === "number" && Number.isInteger(value) && value >= 1;
const isObject = (value: unknown): value is Fields => typeof value === "object" && value !== null;
/** Anchor fingerprints on confirmations (src/anchors/fingerprint.ts). */
const isFingerprints: Check = (value) =>
  Array.isArray(value) &&
  value.every((f) => isObject(f) && isString(f["path"]) && isString(f["hash"]) && isLine(f["start"]) && isLine(f["end"]) && (f["symbol"] === undefined || isString(f["symbol"])) && (f["repo"] === undefined || isString(f["repo"])));
const STEP_RESULTS: ReadonlySet<unknown> = new Set(["passed", "failed", "not-mechanical", "inconclusive"]);
const isMatches: Check = (value) => Array.isArray(value) && value.every((m) => isObject(m) && isString(m["file"]) && isLine(m["line"]));
/** Verify step records of a `verified` event (src/verify/): every field a reader may show, of the type it expects. */
const isStepRecords: Check = (value) =>
  Array.isArray(value) &&
  value.every(
    (s) =>
      isObject(s) &&
      Number.isInteger(s["step"]) &&
      (s["step"] as number) >= 0 &&
      STEP_RESULTS.has(s["result"]) &&
      (s["pattern"] === undefined || isAnyString(s["pattern"])) &&
      (s["paths"] === undefined || isStringArray(s["paths"])) &&
      (s["files"] === undefined || isFiniteNumber(s["files"])) &&
      (s["matches"] === undefined || isMatches(s["matches"])) &&
      (s["reason"] === undefined || isAnyString(s["reason"])),
  );
const isChanges: Check = (value) => Array.isArray(value) && value.every((c) => isObject(c) && isString(c["from"]) && isString(c["to"]));
const req = (key: string, ok: Check = isString, expected = STRING): FieldSpec => [key, "required", ok, expected];
const opt = (key: string, ok: Check = isString, expected = STRING): FieldSpec => [key, "optional", ok, expected];

/** Fields every event may carry besides v, eventId and time. */
const COMMON: readonly FieldSpec[] = [opt("actor"), opt("origin")];

/**
 * The fields of each event type. To add an optional field, add an `opt(...)` line here (and the
 * field to the type in events.ts); readers of older builds skip nothing, they ignore unknown keys.
 */
export const EVENT_FIELDS: Readonly<Record<LedgerEvent["type"], readonly FieldSpec[]>> = {
  injected: [req("run"), req("agent"), req("entries", isStringArray, "an array of entry ids"), opt("request")],
  "held-out": [req("run"), req("agent"), req("entry")],
  confirmed: [
    req("run"),
    req("agent"),
    req("entry"),
    req("provenance", isProvenance, `one of ${PROVENANCES.join(", ")}`),
    opt("findingHash"),
    opt("score", isFiniteNumber, "a finite number"),
    opt("fingerprints", isFingerprints, FINGERPRINTS),
  ],
  archived: [req("entry"), req("reason", isAnyString, "a string"), opt("run")],
  restored: [req("entry"), req("reason", isAnyString, "a string"), opt("run"), opt("agent")],
  compounded: [req("entry"), req("run"), req("agents", isStringArray, "an array of agent names"), opt("findingHash")],
  created: [req("entry")],
  retracted: [req("entry")],
  "manual-confirmed": [req("entry"), opt("fingerprints", isFingerprints, FINGERPRINTS)],
  "hand-confirmed": [req("entry"), req("date", (v) => typeof v === "string" && /^\d{4}-\d{2}-\d{2}$/.test(v), "a date YYYY-MM-DD")],
  superseded: [req("entry"), req("by")],
  "status-set": [req("entry"), req("from"), req("to")],
  verified: [
    req("entry"),
    req("result", (v) => v === "passed" || v === "failed" || v === "not-mechanical", "one of passed, failed, not-mechanical"),
    req("verifyHash"),
    req("steps", isStepRecords, "an array of {step, result} records (pattern a string, paths an array of strings, files a number, matches {file, line} records, reason a string)"),
  ],
  "anchors-fixed": [req("entry"), req("changes", isChanges, "an array of {from, to} changes")],
};

export const EVENT_TYPES = Object.keys(EVENT_FIELDS) as readonly LedgerEvent["type"][];

/** `2026-11-03T09:15:00.000Z`: the only time format stored, so times sort as strings. */
const CANONICAL_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The canonical ISO form of `value`, or undefined when it is not a valid time. */
export function canonicalTime(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  if (CANONICAL_TIME.test(value)) return value;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) return undefined;
  const iso = new Date(ms).toISOString();
  return CANONICAL_TIME.test(iso) ? iso : undefined;
}

function checkFields(fields: Fields, specs: readonly FieldSpec[]): string | undefined {
  for (const [key, presence, ok, expected] of specs) {
    const value = fields[key];
    if (value === undefined && presence === "optional") continue;
    if (!ok(value)) return `"${key}" must be ${expected} (got ${JSON.stringify(value) ?? "nothing"})`;
  }
  return undefined;
}

function checkTypeFields(fields: Fields): string | undefined {
  const type = fields["type"];
  const specs = typeof type === "string" && Object.hasOwn(EVENT_FIELDS, type) ? EVENT_FIELDS[type as LedgerEvent["type"]] : undefined;
  if (!specs) return `"type" must be one of ${EVENT_TYPES.join(", ")} (got ${JSON.stringify(type) ?? "nothing"})`;
  return checkFields(fields, specs) ?? checkFields(fields, COMMON);
}

/** Why a parsed value is not an event: a schema version this build cannot read, or invalid. */
export type EventProblem = { kind: "version" | "invalid"; message: string };

/**
 * Check that `value` is a ledger event this build understands: undefined when it is (and then
 * `value` is a `LedgerEvent`, with `time` rewritten in place to the canonical ISO form when it
 * was not already), else the problem. Allocates nothing on success: it runs once per line.
 */
export function checkEvent(value: unknown): EventProblem | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { kind: "invalid", message: "expected a JSON object" };
  }
  const fields = value as Fields;
  const v = fields["v"];
  if (typeof v !== "number" || !Number.isInteger(v) || v < 1) {
    return { kind: "invalid", message: `"v" must be a positive integer schema version (got ${JSON.stringify(v) ?? "nothing"})` };
  }
  if (v > LEDGER_SCHEMA_VERSION) {
    return {
      kind: "version",
      message: `schema version ${v} is newer than this cairn understands (${LEDGER_SCHEMA_VERSION}); upgrade cairn to read it`,
    };
  }
  if (!isString(fields["eventId"])) return { kind: "invalid", message: checkFields(fields, [req("eventId")]) ?? "" };
  const time = canonicalTime(fields["time"]);
  if (time === undefined) {
    return {
      kind: "invalid",
      message: `"time" must be an ISO timestamp such as 2026-11-03T09:15:00.000Z (got ${JSON.stringify(fields["time"]) ?? "nothing"})`,
    };
  }
  const problem = checkTypeFields(fields);
  if (problem !== undefined) return { kind: "invalid", message: problem };
  if (fields["time"] !== time) fields["time"] = time;
  return undefined;
}

/** Type guard over `checkEvent`. */
export function isLedgerEvent(value: unknown): value is LedgerEvent {
  return checkEvent(value) === undefined;
}
