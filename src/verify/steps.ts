/**
 * Which verify steps are mechanical: a search for a pattern in backticks plus where to look.
 *   grep for `stat.*|| echo 0` in hooks/*.sh and scripts/*.sh
 *   search for `IFS='|'` or `cut -d'|'` under hooks/
 *   `grep -rn 'ctx.Err()' middleware/` (a grep/rg command in backticks: parsed, never run)
 * A match means the pattern the entry warns about is still there. Steps that expect *no* match,
 * compare things, or have no pattern in backticks are not mechanical (a human or agent runs them).
 */
import { classifyPath } from "../entry/anchor-tokens.js";
import type { PatternSyntax } from "./pattern.js";

export type GrepStep = {
  kind: "grep";
  /** Any of these matching counts as a match. */
  patterns: string[];
  syntax: PatternSyntax;
  ignoreCase: boolean;
  /** Where to look: repo-relative globs; empty means every tracked file. */
  paths: string[];
};

export type StepPlan = GrepStep | { kind: "not-mechanical"; reason: string };

const COMMAND = /`\s*(grep|egrep|fgrep|rg)\s+([^`]+)`/;
const VERB = /\b(?:grep|rg|ripgrep|search|look)(?:\s+(?:the\s+)?(?:code(?:base)?|repo(?:sitory)?|files?|sources?))?(?:\s+(?:for|through))?\s+(?=`)/i;
const JOINER = /^(?:\s*(?:,|or|and|and\/or|\/)\s*|\s+)$/i;
const FILLER = /^\s*(?:patterns?|calls?|usages?|uses?|occurrences?|lines?|matches)?\s*/i;
const LOCATION = /^\s*(?:in|under|across|within|inside|from)\s+/i;
const NEGATION = /\b(?:no|not|none|never|absent|absence|without|zero|nothing|missing|lacks?|removed)\b|n't\b/i;

export function planStep(step: string): StepPlan {
  const command = COMMAND.exec(step);
  if (command) return planCommand(command[1]!, command[2]!);
  const verb = VERB.exec(step);
  if (!verb) return { kind: "not-mechanical", reason: "no search for a pattern in backticks (e.g. grep for `pattern` in src/**/*.ts)" };
  let rest = step.slice(verb.index + verb[0].length);
  const patterns: string[] = [];
  for (;;) {
    const m = /^`([^`]+)`/.exec(rest);
    if (!m) break;
    patterns.push(m[1]!);
    rest = rest.slice(m[0].length);
    const joiner = /^\s*(?:,\s*)?(?:or|and)?\s*(?=`)/.exec(rest);
    if (!joiner || !joiner[0].trim() && !/^\s*`/.test(rest)) break;
    rest = rest.slice(joiner[0].length);
  }
  rest = rest.replace(FILLER, " ");
  if (NEGATION.test(step.replace(/`[^`]*`/g, " "))) return { kind: "not-mechanical", reason: "the step expects the pattern to be absent (or compares), which a search cannot judge" };
  const paths = readPaths(rest);
  if (paths === undefined) return { kind: "not-mechanical", reason: "the place to search is not a path or glob" };
  return { kind: "grep", patterns, syntax: "basic", ignoreCase: false, paths };
}

/** `in a/*.sh and b/` → globs; undefined when a location is named but is not a path. No location → everywhere. */
function readPaths(text: string): string[] | undefined {
  const location = LOCATION.exec(text);
  if (!location) return /^\s*(?:$|[.;,]|and\b|then\b)/i.test(text) ? [] : undefined;
  const out: string[] = [];
  let rest = text.slice(location[0].length);
  for (;;) {
    const m = /^`?([^\s`,;()]+)`?/.exec(rest);
    const glob = m ? toGlob(m[1]!.replace(/[.:]+$/, "")) : undefined;
    if (!m || glob === undefined) break;
    out.push(glob);
    rest = rest.slice(m[0].length);
    const joiner = /^\s*(?:,|and|or)\s*(?:in\s+)?/i.exec(rest);
    if (!joiner || !JOINER.test(joiner[0].replace(/in\s+$/i, "")) && !/^\s*,/.test(joiner[0])) break;
    rest = rest.slice(joiner[0].length);
  }
  return out.length ? out : undefined;
}

/** A path token as a repo-relative glob: `hooks/` → `hooks/**`, `*.sh` → `**\/*.sh`, `lib.sh` → `**\/lib.sh`. */
export function toGlob(token: string, command = false): string | undefined {
  const t = token.replace(/^\.\//, "");
  if (!t || t.startsWith("/") || t.split("/").includes("..")) return undefined;
  if (t.endsWith("/")) return `${t}**`;
  const kind = classifyPath(t);
  // A command operand without an extension is a file or a directory: `src` → `src{,/**}`.
  if (!kind) return /^[\w.-]+(?:\/[\w.-]+)+$/.test(t) ? `${t}/**` : command && /^[\w.-]+$/.test(t) ? `${t}{,/**}` : undefined;
  return t.includes("/") ? t : `**/${t}`;
}

/** A grep/rg command line, parsed (never executed): flags, patterns, paths. */
function planCommand(tool: string, args: string): StepPlan {
  if (/[|;&<>$]/.test(args.replace(/'[^']*'|"[^"]*"/g, ""))) return { kind: "not-mechanical", reason: "a command with pipes, redirections or substitutions is not run" };
  const words = shellWords(args);
  if (!words) return { kind: "not-mechanical", reason: "unbalanced quotes in the command" };
  let syntax: PatternSyntax = tool === "rg" || tool === "egrep" ? "extended" : tool === "fgrep" ? "fixed" : "basic";
  let ignoreCase = false;
  let word = false;
  const patterns: string[] = [];
  const operands: string[] = [];
  const includes: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (w === "-e" || w === "--regexp") patterns.push(words[++i] ?? "");
    else if (w === "-g" || w === "--glob" || w.startsWith("--include=")) includes.push(w.startsWith("--include=") ? w.slice(10) : (words[++i] ?? ""));
    else if (/^--(?:fixed-strings)$/.test(w)) syntax = "fixed";
    else if (/^--(?:extended-regexp|perl-regexp)$/.test(w)) syntax = "extended";
    else if (w === "--ignore-case") ignoreCase = true;
    else if (/^-[A-Za-z]+$/.test(w)) {
      if (/[vcLx]/.test(w)) return { kind: "not-mechanical", reason: `the flag ${w} changes what a match means` };
      if (/[EP]/.test(w)) syntax = "extended";
      if (/F/.test(w)) syntax = "fixed";
      if (/i/.test(w)) ignoreCase = true;
      if (/w/.test(w)) word = true;
    } else if (w.startsWith("-")) continue;
    else operands.push(w);
  }
  if (!patterns.length) {
    const first = operands.shift();
    if (first === undefined) return { kind: "not-mechanical", reason: "the command names no pattern" };
    patterns.push(first);
  }
  const paths: string[] = [];
  for (const op of operands) {
    const glob = op === "." ? "**" : toGlob(op, true);
    if (glob === undefined) return { kind: "not-mechanical", reason: `${op} is not a path inside the repository` };
    paths.push(glob);
  }
  const filtered = includes.length
    ? (paths.length ? paths : ["**"]).flatMap((p) => includes.map((inc) => `${p.replace(/\*\*$/, "")}**/${inc.replace(/^\*\*\//, "")}`.replace(/^\*\*\/\*\*\//, "**/")))
    : paths;
  if (!word) return { kind: "grep", patterns, syntax, ignoreCase, paths: filtered };
  // -w: whole words. A fixed string becomes an escaped extended pattern.
  const whole = patterns.map((p) => (syntax === "basic" ? `\\<${p}\\>` : `\\b(?:${syntax === "fixed" ? p.replace(/[\\.+*?()|[\]{}^$]/g, "\\$&") : p})\\b`));
  return { kind: "grep", patterns: whole, syntax: syntax === "basic" ? "basic" : "extended", ignoreCase, paths: filtered };
}

/** Split like a POSIX shell: single quotes literal, double quotes with `\"`, backslash escapes. */
function shellWords(text: string): string[] | undefined {
  const out: string[] = [];
  let current = "";
  let has = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === "'") {
      const close = text.indexOf("'", i + 1);
      if (close === -1) return undefined;
      current += text.slice(i + 1, close);
      has = true;
      i = close;
    } else if (ch === '"') {
      let j = i + 1;
      for (; j < text.length && text[j] !== '"'; j++) {
        if (text[j] === "\\" && /["\\$`]/.test(text[j + 1] ?? "")) j++;
        current += text[j];
      }
      if (j >= text.length) return undefined;
      has = true;
      i = j;
    } else if (ch === "\\") {
      current += text[++i] ?? "";
      has = true;
    } else if (/\s/.test(ch)) {
      if (has) out.push(current);
      current = "";
      has = false;
    } else {
      current += ch;
      has = true;
    }
  }
  if (has) out.push(current);
  return out;
}
