/**
 * Which agents an entry is meant for. An entry's `agents:` lists scopes; a scope reaches an agent when it
 * is the agent's name, a glob over names (`fd-*`), or a domain that cairn.config.json declares for the
 * agent (`agents: {"fd-performance": {"domains": ["performance"]}}`). Names compare with `agentKey()`
 * (case- and whitespace-insensitive). An entry without `agents:` reaches every agent.
 */
import picomatch from "picomatch";
import type { AgentDeclaration } from "../config.js";
import { agentKey } from "../entry/agent-name.js";
import { closest } from "../text/suggest.js";

/** Declared agents by name or glob (cairn.config.json `agents`). */
export type DeclaredAgents = Record<string, AgentDeclaration>;

/** How an agent name relates to the declared agents and the entries' scopes. */
export type AgentReach =
  | { kind: "declared"; domains: string[] }
  | { kind: "scoped" }
  | { kind: "unknown"; suggestions: string[] };

const GLOB = /[*?[\]{}]/;

/** A scope (a name, glob or domain) as a predicate over agent keys; globs compare case-insensitively. */
function scopeMatcher(scope: string): (key: string) => boolean {
  const key = agentKey(scope);
  if (!GLOB.test(key)) return (candidate) => candidate === key;
  const isMatch = picomatch(key, { nocase: true, dot: true });
  return (candidate) => isMatch(candidate);
}

/** The domains cairn.config.json declares for `agent` (from every declaration whose name or glob matches it), as keys. */
export function declaredDomains(agent: string, declared: DeclaredAgents): Set<string> {
  const key = agentKey(agent);
  const domains = new Set<string>();
  for (const [name, declaration] of Object.entries(declared)) {
    if (scopeMatcher(name)(key)) for (const domain of declaration.domains ?? []) domains.add(agentKey(domain));
  }
  return domains;
}

/**
 * A filter for one agent over entries' `agents:` lists: true when the list is empty or one of its scopes
 * names the agent, matches it as a glob, or is one of its declared domains. Compiled scopes are cached.
 */
export function agentFilter(agent: string, declared: DeclaredAgents = {}): (entryAgents: readonly string[]) => boolean {
  const key = agentKey(agent);
  const domains = declaredDomains(agent, declared);
  const verdicts = new Map<string, boolean>();
  const reaches = (scope: string): boolean => {
    let verdict = verdicts.get(scope);
    if (verdict === undefined) {
      verdict = scopeMatcher(scope)(key) || domains.has(agentKey(scope));
      verdicts.set(scope, verdict);
    }
    return verdict;
  };
  return (entryAgents) => entryAgents.length === 0 || entryAgents.some(reaches);
}

/**
 * Is `agent` one cairn knows? Declared in the config (by name or glob), else reached by at least one
 * entry's scope, else unknown — with the closest declared or scoped names as suggestions.
 */
export function agentReach(agent: string, declared: DeclaredAgents, scopes: Iterable<string>): AgentReach {
  const key = agentKey(agent);
  if (Object.keys(declared).some((name) => scopeMatcher(name)(key))) return { kind: "declared", domains: [...declaredDomains(agent, declared)] };
  const filter = agentFilter(agent, declared);
  const names: string[] = [...Object.keys(declared)];
  for (const scope of scopes) {
    if (filter([scope])) return { kind: "scoped" };
    names.push(scope);
  }
  return { kind: "unknown", suggestions: closest(agent, names.filter((n) => !GLOB.test(n))) };
}

/**
 * The warning inject gives when `agent` is unknown while some knowledge is scoped (declared agents or
 * entries with `agents:`): scoped entries cannot reach it. Undefined when the agent is known or nothing is scoped.
 */
export function unknownAgentWarning(agent: string, declared: DeclaredAgents, scopes: readonly string[]): string | undefined {
  if (!Object.keys(declared).length && !scopes.length) return undefined;
  const reach = agentReach(agent, declared, scopes);
  if (reach.kind !== "unknown") return undefined;
  const hint = reach.suggestions.length ? ` Did you mean ${reach.suggestions.map((s) => `"${s}"`).join(" or ")}?` : "";
  const declaredNames = Object.keys(declared);
  const known = declaredNames.length ? ` (declared: ${declaredNames.join(", ")})` : "";
  return (
    `agent "${agent}" matches no agent declared in cairn.config.json${known} and no entry's agents: scope, so only entries without agents: can reach it.${hint}` +
    ` To give it scoped knowledge, declare it with its domains, e.g. "agents": {"${agent}": {"domains": ["performance"]}}.`
  );
}
