/** Shape checks for ledger events, shared by append (caller input) and read (file lines). */
import { PROVENANCES } from "../entry/types.js";
import { LEDGER_SCHEMA_VERSION, type LedgerEvent } from "./events.js";

export const EVENT_TYPES: readonly LedgerEvent["type"][] = [
  "injected",
  "confirmed",
  "archived",
  "restored",
  "compounded",
  "retracted",
  "manual-confirmed",
  "superseded",
  "verified",
  "anchors-fixed",
];
const PROVENANCE_SET: ReadonlySet<string> = new Set(PROVENANCES);

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

type Fields = Record<string, unknown>;

function isString(value: unknown): value is string {
  return typeof value === "string" && value.length > 0;
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every(isString);
}

function need(fields: Fields, key: string, ok: (value: unknown) => boolean, expected: string): string | undefined {
  return ok(fields[key]) ? undefined : `"${key}" must be ${expected} (got ${JSON.stringify(fields[key]) ?? "nothing"})`;
}

function optional(fields: Fields, key: string, ok: (value: unknown) => boolean, expected: string): string | undefined {
  return fields[key] === undefined ? undefined : need(fields, key, ok, expected);
}

const STRING = "a non-empty string";
const FINGERPRINTS = "an array of {path, start, end, hash} anchor fingerprints";

function isLine(value: unknown): boolean {
  return typeof value === "number" && Number.isInteger(value) && value >= 1;
}

function isFingerprints(value: unknown): boolean {
  return (
    Array.isArray(value) &&
    value.every((f: Fields) => typeof f === "object" && f !== null && isString(f["path"]) && isString(f["hash"]) && isLine(f["start"]) && isLine(f["end"]) && (f["symbol"] === undefined || isString(f["symbol"])) && (f["repo"] === undefined || isString(f["repo"])))
  );
}

const STEP_RESULTS: ReadonlySet<unknown> = new Set(["passed", "failed", "not-mechanical", "inconclusive"]);

function isStepRecords(value: unknown): boolean {
  return Array.isArray(value) && value.every((s: Fields) => typeof s === "object" && s !== null && Number.isInteger(s["step"]) && STEP_RESULTS.has(s["result"]));
}

function checkTypeFields(fields: Fields): string | undefined {
  switch (fields["type"]) {
    case "injected":
      return (
        need(fields, "run", isString, STRING) ??
        need(fields, "agent", isString, STRING) ??
        need(fields, "entries", isStringArray, "an array of entry ids")
      );
    case "confirmed":
      return (
        need(fields, "run", isString, STRING) ??
        need(fields, "agent", isString, STRING) ??
        need(fields, "entry", isString, STRING) ??
        need(fields, "provenance", (v) => typeof v === "string" && PROVENANCE_SET.has(v), `one of ${PROVENANCES.join(", ")}`) ??
        optional(fields, "findingHash", isString, STRING) ??
        optional(fields, "score", (v) => typeof v === "number" && Number.isFinite(v), "a finite number") ??
        optional(fields, "fingerprints", isFingerprints, FINGERPRINTS)
      );
    case "archived":
    case "restored":
      return (
        need(fields, "entry", isString, STRING) ??
        need(fields, "reason", (v) => typeof v === "string", "a string") ??
        optional(fields, "run", isString, STRING)
      );
    case "compounded":
      return (
        need(fields, "entry", isString, STRING) ??
        need(fields, "run", isString, STRING) ??
        need(fields, "agents", isStringArray, "an array of agent names")
      );
    case "retracted":
      return need(fields, "entry", isString, STRING);
    case "manual-confirmed":
      return need(fields, "entry", isString, STRING) ?? optional(fields, "fingerprints", isFingerprints, FINGERPRINTS);
    case "verified":
      return (
        need(fields, "entry", isString, STRING) ??
        need(fields, "result", (v) => v === "passed" || v === "failed" || v === "not-mechanical", "one of passed, failed, not-mechanical") ??
        need(fields, "verifyHash", isString, STRING) ??
        need(fields, "steps", isStepRecords, "an array of {step, result} records")
      );
    case "superseded":
      return need(fields, "entry", isString, STRING) ?? need(fields, "by", isString, STRING);
    case "anchors-fixed":
      return (
        need(fields, "entry", isString, STRING) ??
        need(fields, "changes", (v) => Array.isArray(v) && v.every((c: Fields) => typeof c === "object" && c !== null && isString(c["from"]) && isString(c["to"])), "an array of {from, to} changes")
      );
    default:
      return `"type" must be one of ${EVENT_TYPES.join(", ")} (got ${JSON.stringify(fields["type"]) ?? "nothing"})`;
  }
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
  if (!isString(fields["eventId"])) return { kind: "invalid", message: need(fields, "eventId", isString, STRING) ?? "" };
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
