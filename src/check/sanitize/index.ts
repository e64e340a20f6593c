/**
 * Sanitization of entry text: secrets, network identifiers, paths, deny patterns and prompt
 * injection, as diagnostics with exact 1-based positions. Pure: no I/O, no state between calls.
 *
 * Order matters and is fixed: secrets are found first and masked, then URLs (credentials,
 * hosts) and e-mails, then IPs and bare hosts, then paths on what is left; deny patterns and
 * prompt injection scan the original text. So each piece of text is reported once, by the most
 * specific rule (a token inside a URL is a token; a path inside a URL is part of the URL).
 */
import type { Diagnostic } from "../../entry/diagnostic.js";
import { type DenyPattern, compileDenyPatterns, detectDenied } from "./deny.js";
import type { Finding } from "./finding.js";
import { detectHidden } from "./hidden.js";
import { type HostPolicy, compileHostPolicy } from "./hosts.js";
import { detectInjection } from "./injection.js";
import { detectNetwork } from "./network.js";
import { detectPaths } from "./paths.js";
import { createLineIndex } from "./position.js";
import { severityOf } from "./rules.js";
import { detectSecrets } from "./secrets.js";

export { SANITIZE_RULES, type SanitizeRule, type SanitizeRuleId } from "./rules.js";
export { createLineIndex, lineColumnAt, type Position } from "./position.js";

export type SanitizeOptions = {
  /** Hosts allowed in entries: exact (`docs.rs`) or wildcard (`*.example.com`, subdomains only), on top of the built-in documentation hosts. Default []. */
  allowHosts?: string[];
  /** Case-insensitive (Unicode) regular expressions for organisation/customer names. Default []. */
  denyPatterns?: string[];
};

/** A compiled sanitizer: `(text, file, startLine = 1) => diagnostics` sorted by position. */
export type Sanitizer = (text: string, file: string, startLine?: number) => Diagnostic[];

type Compiled = { hosts: HostPolicy; deny: DenyPattern[] };

function findAll(text: string, file: string, compiled: Compiled): Finding[] {
  const secrets = detectSecrets(text);
  const network = detectNetwork(secrets.masked, compiled.hosts);
  return [
    ...secrets.findings,
    ...network.findings,
    ...detectPaths(network.masked, { file }),
    ...detectDenied(text, compiled.deny),
    ...detectInjection(text),
    ...detectHidden(text),
  ];
}

/** Diagnostics per rule and text: one entry with thousands of hits needs the first few and a count, not all of them. */
export const MAX_PER_RULE = 50;

function toDiagnostics(text: string, file: string, startLine: number, findings: Finding[]): Diagnostic[] {
  if (findings.length === 0) return [];
  const at = createLineIndex(text, startLine);
  const seen = new Set<string>();
  const perRule = new Map<string, number>();
  const diagnostics: Diagnostic[] = [];
  for (const finding of [...findings].sort((a, b) => a.start - b.start || (a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0))) {
    const count = (perRule.get(finding.rule) ?? 0) + 1;
    if (count > MAX_PER_RULE) {
      perRule.set(finding.rule, count);
      continue;
    }
    const key = `${finding.start}:${finding.end}:${finding.rule}`;
    if (seen.has(key)) continue;
    seen.add(key);
    perRule.set(finding.rule, count);
    const { line, column } = at(finding.start);
    diagnostics.push({ file, line, column, rule: finding.rule, severity: severityOf(finding.rule), message: finding.message });
  }
  for (const [rule, count] of perRule) {
    if (count <= MAX_PER_RULE) continue;
    const last = diagnostics.findLast((d) => d.rule === rule)!;
    diagnostics.push({ ...last, message: `… and ${count - MAX_PER_RULE} more ${rule} problems in this text (the first ${MAX_PER_RULE} are listed)` });
  }
  return diagnostics;
}

/**
 * Compile the options once (host allowlist, deny regexes) and return a fast checker.
 * Throws CairnError("CONFIG") for an invalid deny pattern or allowHosts entry.
 */
export function createSanitizer(options: SanitizeOptions = {}): Sanitizer {
  const compiled: Compiled = { hosts: compileHostPolicy(options.allowHosts), deny: compileDenyPatterns(options.denyPatterns) };
  return (text, file, startLine = 1) => toDiagnostics(text, file, startLine, findAll(text, file, compiled));
}

const cache = new WeakMap<SanitizeOptions, Sanitizer>();
let defaultSanitizer: Sanitizer | undefined;

/**
 * Sanitization diagnostics for `text` (a whole entry file or a piece of text such as a finding;
 * `file` may then be a label like `<finding>`). `startLine` is the line of `text`'s first line
 * in its file (default 1). Compiled options are cached per options object.
 */
export function sanitizeText(text: string, file: string, options?: SanitizeOptions, startLine = 1): Diagnostic[] {
  let sanitizer: Sanitizer;
  if (!options) {
    sanitizer = defaultSanitizer ??= createSanitizer();
  } else {
    sanitizer = cache.get(options) ?? createSanitizer(options);
    cache.set(options, sanitizer);
  }
  return sanitizer(text, file, startLine);
}
