/**
 * What a change to cairn.config.json does, key by key, and which of those changes let more through: a gating rule
 * switched off or below error (an error of the diff: the entry it flags reaches prompts), and other loosening
 * (warnings). Pure: works on what `config-file.ts` read at each revision, parsed as `loadConfig` parses it.
 */
import { findNodeAtLocation, parseTree, type JSONPath } from "jsonc-parser";
import { ruleMeta } from "../check/rules/registry.js";
import { CONFIG_FILE, DEFAULT_CONFIG, resolveConfig } from "../config.js";
import { diagnostic, type Diagnostic } from "../entry/diagnostic.js";
import { parseJson } from "../text/json.js";
import type { ConfigSource } from "./config-file.js";
import { canonical } from "./plan.js";
import type { ConfigDiff, ConfigKeyChange, ConfigSide } from "./types.js";

export type ConfigComparison = {
  /** Undefined when the loader gets the same settings at both revisions from the same place. */
  diff?: ConfigDiff;
  /** The one-line summary for `warnings`. */
  warning?: string;
  /** `config-gate-weakened` (error) and `config-weakened` (warning) diagnostics, at the key's line at HEAD. */
  problems: Diagnostic[];
};

type Read = { side: ConfigSide; raw?: Record<string, unknown>; text?: string };

export function compareConfig(before: ConfigSource, after: ConfigSource): ConfigComparison {
  const [old, now] = [read(before), read(after)];
  const changes = old.raw && now.raw ? keyChanges(old.raw, now.raw) : [];
  const sameSide = canonical(old.side) === canonical(now.side);
  const sameText = old.text === now.text;
  if (sameSide && (sameText || (changes.length === 0 && old.raw && now.raw))) return { problems: [] };
  const status: ConfigDiff["status"] = old.side.state === "absent" && now.side.state !== "absent" ? "added" : now.side.state === "absent" && old.side.state !== "absent" ? "removed" : "edited";
  const diff: ConfigDiff = { file: CONFIG_FILE, status, before: old.side, after: now.side, changes };
  const file = now.side.link ?? CONFIG_FILE;
  const problems = changes.flatMap((c) => (c.effect ? [problemOf(c, file, now.text)] : []));
  return { diff, warning: summary(diff), problems };
}

function read(source: ConfigSource): Read {
  const link = source.link !== undefined ? { link: source.link } : {};
  if (source.kind === "absent") return { side: { state: "absent", ...link }, raw: {} };
  if (source.kind === "refused") return { side: { state: "refused", problem: source.reason, ...link } };
  // As loadConfig: a leading BOM is dropped, then the same JSON reader.
  const text = source.text.replace(/^\uFEFF/, "");
  let raw: unknown;
  try {
    raw = parseJson(text);
  } catch (error) {
    return { side: { state: "invalid", problem: `not valid JSON: ${(error as Error).message}`, ...link }, text };
  }
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return { side: { state: "invalid", problem: "not a JSON object", ...link }, text };
  try {
    resolveConfig(raw);
  } catch (error) {
    const problem = (error as Error).message.split("\n").slice(1, 3).join(" ").trim() || (error as Error).message;
    return { side: { state: "invalid", problem, ...link }, raw: raw as Record<string, unknown>, text };
  }
  return { side: { state: "valid", ...link }, raw: raw as Record<string, unknown>, text };
}

const SEVERITY_RANK: Record<string, number> = { off: 0, warning: 1, error: 2 };

function keyChanges(old: Record<string, unknown>, now: Record<string, unknown>): ConfigKeyChange[] {
  const out: ConfigKeyChange[] = [];
  const keys = [...new Set([...Object.keys(old), ...Object.keys(now)])].sort();
  for (const key of keys) {
    if (key === "rules") out.push(...ruleChanges(objectOf(old.rules), objectOf(now.rules)));
    else if (key === "sanitize") out.push(...sanitizeChanges(objectOf(old.sanitize), objectOf(now.sanitize)));
    else if (canonical(old[key]) !== canonical(now[key])) out.push(valueChange(key, old[key], now[key]));
  }
  return out;
}

function objectOf(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** A rule's severity as the engine applies it: the configured one, else the rule's own. */
function ruleChanges(old: Record<string, unknown>, now: Record<string, unknown>): ConfigKeyChange[] {
  const out: ConfigKeyChange[] = [];
  for (const id of [...new Set([...Object.keys(old), ...Object.keys(now)])].sort()) {
    const meta = ruleMeta(id);
    const own = meta?.severity;
    const from = old[id] ?? own;
    const to = now[id] ?? own;
    if (from === to) continue;
    const change: ConfigKeyChange = { key: `rules.${id}`, ...(old[id] !== undefined ? { from: old[id] } : {}), ...(now[id] !== undefined ? { to: now[id] } : {}), default: own ?? null };
    const lower = (SEVERITY_RANK[String(to)] ?? 2) < (SEVERITY_RANK[String(from)] ?? 2);
    if (lower && meta?.gate && from === "error") {
      change.effect = "weakens-gate";
      change.why = `${id} is a gating rule: below "error", an entry it flags is no longer withheld from agents' prompts, and cairn check passes it`;
    } else if (lower) {
      change.effect = "weakens";
      change.why = to === "off" ? `cairn check no longer reports ${id}` : `cairn check and the Action no longer fail on ${id}`;
    }
    out.push(change);
  }
  return out;
}

function sanitizeChanges(old: Record<string, unknown>, now: Record<string, unknown>): ConfigKeyChange[] {
  const out: ConfigKeyChange[] = [];
  for (const name of ["allowHosts", "denyPatterns", ...Object.keys({ ...old, ...now }).filter((k) => k !== "allowHosts" && k !== "denyPatterns").sort()]) {
    const [from, to] = [old[name], now[name]];
    if (canonical(from) === canonical(to)) continue;
    const change: ConfigKeyChange = { key: `sanitize.${name}`, ...(from !== undefined ? { from } : {}), ...(to !== undefined ? { to } : {}), default: name === "allowHosts" || name === "denyPatterns" ? [] : null };
    const [a, b] = [listOf(from), listOf(to)];
    const added = b.filter((x) => !a.includes(x));
    const removed = a.filter((x) => !b.includes(x));
    if (name === "allowHosts" && added.length) {
      change.effect = "weakens";
      change.why = `entries may now name ${added.map((h) => JSON.stringify(h)).join(", ")} without a network-rule error: that text reaches agents' prompts`;
    } else if (name === "denyPatterns" && removed.length) {
      change.effect = "weakens";
      change.why = `names matching ${removed.map((p) => JSON.stringify(p)).join(", ")} are no longer flagged in entries`;
    }
    out.push(change);
  }
  return out;
}

function listOf(value: unknown): string[] {
  return Array.isArray(value) ? value.map(String) : [];
}

/** What loosening a plain key means, when it does. */
function valueChange(key: string, from: unknown, to: unknown): ConfigKeyChange {
  const defaults = DEFAULT_CONFIG as unknown as Record<string, unknown>;
  const fallback = defaults[key];
  const change: ConfigKeyChange = { key, ...(from !== undefined ? { from } : {}), ...(to !== undefined ? { to } : {}), default: fallback ?? null };
  const [a, b] = [from ?? fallback, to ?? fallback];
  const num = (v: unknown) => (v === "off" ? 0 : typeof v === "number" ? v : undefined);
  const rose = num(a) !== undefined && num(b) !== undefined && num(b)! > num(a)!;
  const fell = num(a) !== undefined && num(b) !== undefined && num(b)! < num(a)!;
  const why: Record<string, string | undefined> = {
    knowledgeDir: "check, inject and this diff read entries from another directory: what is in it was never reviewed here as entries, and the old one is no longer checked",
    decayAfterRuns: rose ? "entries stay in prompts for more runs without an independent confirmation before they are archived" : undefined,
    holdout: rose ? "an entry one run from decay is withheld (not archived) for more runs" : undefined,
    nearDecayRatio: rose ? "near-decay warnings come later" : undefined,
    matchThreshold: fell ? "record matches looser findings to entries: more of them count as confirmations, which keep entries from decaying" : undefined,
  };
  if (why[key] !== undefined) {
    change.effect = "weakens";
    change.why = why[key];
  }
  return change;
}

function problemOf(change: ConfigKeyChange, file: string, text: string | undefined): Diagnostic {
  const gate = change.effect === "weakens-gate";
  const where = file === CONFIG_FILE ? CONFIG_FILE : `${CONFIG_FILE} (a link to ${file})`;
  const message = gate
    ? `${where}: ${describe(change)}: ${change.why}; expected "error" (or no setting) — if the rule must really be relaxed, review this change like code and merge it deliberately past this check`
    : `${where}: ${describe(change)}: ${change.why}; review this change like code`;
  return diagnostic(file, gate ? "config-gate-weakened" : "config-weakened", gate ? "error" : "warning", message, text === undefined ? undefined : lineOf(text, change.key));
}

/** Line and column of a dotted key's value at HEAD (its parent's when the key was removed). */
function lineOf(text: string, key: string): { line: number; column: number } {
  const [head, ...rest] = key.split(".");
  const location: JSONPath = rest.length ? [head!, rest.join(".")] : [head!];
  const tree = parseTree(text);
  const node = tree && (findNodeAtLocation(tree, location) ?? (rest.length ? findNodeAtLocation(tree, [head!]) : undefined));
  const offset = node?.parent?.type === "property" ? node.parent.offset : (node?.offset ?? 0);
  const before = text.slice(0, offset);
  return { line: before.split("\n").length, column: offset - (before.lastIndexOf("\n") + 1) + 1 };
}

/** `rules.prompt-injection "error" (default) → "off"` */
export function describe(change: ConfigKeyChange): string {
  const show = (value: unknown) => (value === undefined ? (change.default === null || change.default === undefined ? "(absent)" : `${JSON.stringify(change.default)} (default)`) : JSON.stringify(value));
  return `${change.key} ${show(change.from)} → ${show(change.to)}`;
}

function sideText(side: ConfigSide): string {
  return side.state === "absent" ? "absent" : side.state === "valid" ? "valid" : `${side.state === "refused" ? "refused by cairn" : "invalid"} (${side.problem ?? "?"})`;
}

function summary(diff: ConfigDiff): string {
  const { before, after } = diff;
  const parts: string[] = [];
  if (before.link !== after.link) {
    parts.push(
      after.link === undefined ? `it is no longer a symbolic link (it was one to ${before.link})` : before.link === undefined ? `it is now a symbolic link to ${after.link}, where cairn reads the settings from` : `it now links to ${after.link} instead of ${before.link}`,
    );
  }
  if (after.state === "invalid" || after.state === "refused") parts.push(`it is now ${sideText(after)}: every cairn command refuses to run with it`);
  else if (before.state === "invalid" || before.state === "refused") parts.push(`it was ${sideText(before)} before`);
  const weakening = diff.changes.filter((c) => c.effect);
  if (weakening.length) parts.push(`⚠️ ${weakening.length === 1 ? "one change lets" : `${weakening.length} changes let`} more through: ${weakening.map((c) => `${describe(c)}${c.effect === "weakens-gate" ? " (weakens the inject gate)" : ""}`).join("; ")}`);
  const rest = diff.changes.filter((c) => !c.effect);
  if (rest.length) parts.push(`${weakening.length ? "also " : ""}${rest.map(describe).join("; ")}`);
  if (!parts.length) parts.push("the settings are the same");
  const name = after.link ?? before.link ? `${CONFIG_FILE} (${after.link ? `a link to ${after.link}` : `was a link to ${before.link}`})` : CONFIG_FILE;
  return `${name} changed (${diff.status}): ${parts.join("; ")} — the configuration decides where entries are, which rules keep an entry out of prompts and how many an agent gets; review it like code`;
}
