/**
 * Format a frontmatter value or key as one line of YAML that reads back as exactly that value:
 * plain when that is unambiguous, otherwise double-quoted; arrays in flow style `[a, b]`.
 */
import { parseDocument } from "yaml";

/** A value the tool writes into frontmatter. */
export type FrontmatterValue = string | number | boolean | string[];

/** Characters YAML cannot hold literally in a scalar, or that older YAML 1.1 readers treat as line breaks. */
const NON_PRINTABLE = /[\p{Cc}\u2028\u2029\uFEFF\uFFFE\uFFFF]|\p{Cs}/u;
/** A `YYYY-MM-DD` date stays plain (the entry format writes dates so); YAML 1.2 reads it as a string, YAML 1.1 as a timestamp. */
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The YAML text for `value`, or undefined when it cannot be written (non-finite number, non-string array item). */
export function formatValue(value: unknown): string | undefined {
  if (typeof value === "boolean") return String(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return undefined;
    return Object.is(value, -0) ? "-0" : String(value);
  }
  if (typeof value === "string") return formatString(value, "block");
  if (Array.isArray(value)) {
    if (!value.every((item): item is string => typeof item === "string")) return undefined;
    return `[${value.map((item) => formatString(item, "flow")).join(", ")}]`;
  }
  return undefined;
}

/** The YAML text for a mapping key: plain for simple identifiers, otherwise double-quoted. */
export function formatKey(key: string): string {
  if (/^[A-Za-z_$][\w$.-]*$/.test(key) && readsBackAsKey(key)) return key;
  return doubleQuote(key);
}

/** A string as a plain scalar when YAML 1.2 (and YAML 1.1 readers such as gray-matter) read it back unchanged, else double-quoted. */
export function formatString(text: string, context: "block" | "flow"): string {
  return isPlainSafe(text, context) ? text : doubleQuote(text);
}

/** Strings any YAML 1.1/1.2 reader takes as plain text without asking a parser: letters first, no indicators. */
const SIMPLE = /^[A-Za-z][A-Za-z0-9 _./()-]*$/;
const KEYWORDS = /^(?:y|n|yes|no|on|off|true|false|null)$/i;

function isPlainSafe(text: string, context: "block" | "flow"): boolean {
  if (ISO_DATE.test(text)) return true;
  if (SIMPLE.test(text) && !text.endsWith(" ") && !KEYWORDS.test(text)) return true;
  if (text === "" || /^[ \t]|[ \t]$/.test(text) || NON_PRINTABLE.test(text)) return false;
  if (/^(?:[\[\]{},#&*!|>'"%@`]|[-?:](?:[ \t]|$))/.test(text)) return false;
  if (/:(?:[ \t]|$)|[ \t]#/.test(text)) return false;
  if (context === "flow" && /[,\[\]{}:]/.test(text)) return false;
  const source = context === "block" ? `k: ${text}\n` : `k: [${text}]\n`;
  return (["1.2", "1.1"] as const).every((version) => {
    const doc = parseDocument(source, { version });
    if (doc.errors.length > 0) return false;
    const parsed: unknown = doc.toJS();
    const value = (parsed as { k?: unknown } | null)?.k;
    return context === "block" ? value === text : Array.isArray(value) && value.length === 1 && value[0] === text;
  });
}

function readsBackAsKey(key: string): boolean {
  return (["1.2", "1.1"] as const).every((version) => {
    const doc = parseDocument(`${key}: 1\n`, { version });
    const parsed: unknown = doc.errors.length === 0 ? doc.toJS() : undefined;
    return typeof parsed === "object" && parsed !== null && Object.keys(parsed).join() === key;
  });
}

const ESCAPES: Record<string, string> = {
  "\\": "\\\\",
  '"': '\\"',
  "\0": "\\0",
  "\b": "\\b",
  "\t": "\\t",
  "\n": "\\n",
  "\v": "\\v",
  "\f": "\\f",
  "\r": "\\r",
};

/** A YAML double-quoted scalar: `\` and `"` escaped, non-printable characters as `\uXXXX`. */
export function doubleQuote(text: string): string {
  let out = '"';
  for (const ch of text) {
    const named = ESCAPES[ch];
    if (named !== undefined) out += named;
    else if (NON_PRINTABLE.test(ch)) out += `\\u${ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`;
    else out += ch;
  }
  return `${out}"`;
}
