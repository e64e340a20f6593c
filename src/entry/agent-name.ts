/** Agent names as the domain compares them: case- and whitespace-insensitive everywhere (ledger, scoping, provenance). */

/**
 * The comparison key of an agent name: every white space removed, lower-cased (`" Security "`, `"SECURITY"`,
 * `"security"` are one agent, and so are `"Security Team"` and `"SecurityTeam"`). DESIGN.md's amendment says agent
 * names compare whitespace-insensitively; collapsing inner spaces only let a primed agent that spells its name without
 * the space count as independent. Two names that differ only in spaces are one agent: the safe side (primed).
 */
export function agentKey(name: string): string {
  return name.replace(/[\s\u0085]+/g, "").toLowerCase();
}

/** True when two agent names denote the same agent. */
export function sameAgent(a: string, b: string): boolean {
  return agentKey(a) === agentKey(b);
}
