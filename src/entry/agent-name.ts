/** Agent names as the domain compares them: case- and whitespace-insensitive everywhere (ledger, scoping, provenance). */
import { CONFUSABLES } from "../text/confusables.js";
import { CONTROL_CHARS, HIDDEN_CHARS } from "../text/invisible.js";

/** White space and the characters that show nothing: none of them tells one agent from another. */
/** White space, controls, what hides text, and the braille blank. (Marks are kept: in many scripts they make the word.) */
const IGNORED = new RegExp(`[\\s${CONTROL_CHARS}${HIDDEN_CHARS}\\u2800]+`, "gu");
/** A Latin letter: a name holding one is read with Greek and Cyrillic capitals as the Latin letters they look like. */
const LATIN = /\p{Script=Latin}/u;
const CONTROL = new RegExp(`[${CONTROL_CHARS}]`, "u");

/**
 * The comparison key of an agent name: every white space removed, lower-cased (`" Security "`, `"SECURITY"`,
 * `"security"` are one agent, and so are `"Security Team"` and `"SecurityTeam"`). DESIGN.md's amendment says agent
 * names compare whitespace-insensitively; collapsing inner spaces only let a primed agent that spells its name without
 * the space count as independent. Two names that differ only in spaces are one agent: the safe side (primed).
 *
 * For the same reason a name is read as it shows: compatibility forms folded (`ｓｅｃ` and `ſec` are `sec`),
 * every default-ignorable character dropped (`se\u200bc`, `sec\u00ad`, `sec\u3164`), and look-alike letters read
 * as the Latin ones they imitate (`ѕес`, `securıty`, Greek `ΝΕΤ`). Every one of those let one agent, shown an entry, re-find it as "another" agent.
 */
export function agentKey(name: string): string {
  if (/^[\x21-\x7e]*$/.test(name)) return name.toLowerCase();
  const plain = name.normalize("NFKC").replace(IGNORED, "");
  // In a Latin name a Greek Υ is a disguised Y, so capitals are read before lower-casing (υ would be u). A Greek name
  // is lower-cased first, so that ΜΥ and μυ stay one agent.
  const mixed = LATIN.test(plain);
  let out = "";
  for (const ch of plain) out += (mixed ? CONFUSABLES[ch] : undefined) ?? CONFUSABLES[ch.toLowerCase()] ?? ch.toLowerCase();
  return out;
}

/** True when two agent names denote the same agent. */
export function sameAgent(a: string, b: string): boolean {
  return agentKey(a) === agentKey(b);
}

/** Why `name` cannot name an agent (empty once what shows nothing is dropped, or holding a control character), or undefined. */
export function agentNameProblem(name: string): string | undefined {
  const control = CONTROL.exec(name);
  if (control) return `must be printable text, not a control character (U+${control[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")})`;
  if (agentKey(name) === "") return "must not be empty";
  return undefined;
}
