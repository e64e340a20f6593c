/**
 * Run ids: what an orchestrator may name a run (checked where an id comes in: inject, record, compound — library,
 * CLI and MCP alike) and how two spellings are compared (everywhere the ledger tells runs apart).
 */
import { agentKey } from "../entry/agent-name.js";
import { CONTROL_CHARS, HIDDEN_CHARS } from "../text/invisible.js";

/** The longest run id accepted: a PR number, an attempt, a branch fit many times over; a run id is not a payload. */
export const MAX_RUN_ID_LENGTH = 200;

const CONTROL = new RegExp(`[${CONTROL_CHARS}]`, "u");
/** What shows nothing or reorders text (zero-width, bidi, tags…) and the line and paragraph separators. */
const HIDDEN = new RegExp(`[${HIDDEN_CHARS}\\u2028\\u2029]`, "u");

const codePoint = (ch: string) => `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;

/**
 * Why `run` cannot be a run id, or undefined. Refused: an empty id; white space at either end; a control character;
 * a character that shows nothing or reorders text; more than MAX_RUN_ID_LENGTH characters. Each of those makes two
 * ids that read the same (or one that cannot be read at all), and a run whose record call spells its id unlike its
 * inject call finds no injection: its agents' re-findings of what they were shown would count as independent.
 */
export function runIdProblem(run: string): string | undefined {
  if (run.trim() === "") return "must not be empty";
  if (run.length > MAX_RUN_ID_LENGTH) return `must be at most ${MAX_RUN_ID_LENGTH} characters (got ${run.length})`;
  const control = CONTROL.exec(run);
  if (control) return `must be printable text, not a control character (${codePoint(control[0])} at position ${control.index + 1})`;
  const hidden = HIDDEN.exec(run);
  if (hidden) return `must not hold a character that shows nothing or reorders text (${codePoint(hidden[0])} at position ${hidden.index + 1}, e.g. a zero-width space or a bidi mark)`;
  if (run !== run.trim()) return `must not start or end with white space (got ${JSON.stringify(run)}; use ${JSON.stringify(run.trim())})`;
  return undefined;
}

/**
 * The comparison key of a run id: compared like agent names (agentKey: case-, white-space- and look-alike-insensitive,
 * what shows nothing dropped), so `PR-7`, `pr-7 ` and `pr-7\u200b` are one run. Ids are refused such characters on
 * the way in (runIdProblem); the key is what makes ledgers written before that (and hand-edited lines) err the safe
 * way: a re-finding in a run spelt differently from its injection counts as primed, not independent.
 */
export function runIdKey(run: string): string {
  return agentKey(run);
}
