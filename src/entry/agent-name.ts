/** Agent names as the domain compares them: case- and whitespace-insensitive everywhere (ledger, scoping, provenance). */

/**
 * The comparison key of an agent name: trimmed, inner whitespace runs collapsed to one space,
 * lower-cased (`" Security "`, `"SECURITY"` and `"security"` are one agent).
 */
export function agentKey(name: string): string {
  return name.trim().replace(/\s+/g, " ").toLowerCase();
}

/** True when two agent names denote the same agent. */
export function sameAgent(a: string, b: string): boolean {
  return agentKey(a) === agentKey(b);
}
