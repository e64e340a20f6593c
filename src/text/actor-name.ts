/** Actor names: who the ledger says made a change. One line of printable text, short, so the audit trail stays readable. */
import { CONTROL_CHARS, HIDDEN_CHARS } from "./invisible.js";

/** The longest actor name recorded on a ledger event. */
export const MAX_ACTOR_LENGTH = 256;

const UNPRINTABLE = new RegExp(`[${CONTROL_CHARS}\\u2028\\u2029]`, "u");
const CONTROLS = new RegExp(`[${CONTROL_CHARS}\\u2028\\u2029]+`, "gu");
const HIDDEN = new RegExp(`[${HIDDEN_CHARS}]+`, "gu");

/** True for a usable actor name: trimmed, not empty, one line without control characters, at most MAX_ACTOR_LENGTH characters. */
export function isActorName(actor: unknown): actor is string {
  return typeof actor === "string" && actor !== "" && actor === actor.trim() && actor.length <= MAX_ACTOR_LENGTH && !UNPRINTABLE.test(actor);
}

/**
 * `name` made an actor name of at most `max` characters: controls and line breaks become spaces, what shows nothing is
 * dropped, white space is collapsed and trimmed, and a longer name is cut (ending in `…`). Undefined when nothing is left.
 */
export function toActorName(name: string, max = MAX_ACTOR_LENGTH): string | undefined {
  const plain = name.replace(HIDDEN, "").replace(CONTROLS, " ").replace(/\s+/gu, " ").trim();
  if (plain === "") return undefined;
  if (plain.length <= max) return plain;
  // Cut on a code point, never inside a surrogate pair.
  let out = "";
  for (const ch of plain) {
    if (out.length + ch.length > max - 1) break;
    out += ch;
  }
  return `${out.trimEnd()}…`;
}
