/** Shared helpers for the sanitize tests. */
import { type SanitizeOptions, sanitizeText } from "../../../src/check/sanitize/index.js";

/** `rule@line:column` for every diagnostic, in order. */
export function hits(text: string, options?: SanitizeOptions, file = "knowledge/entry.md"): string[] {
  return sanitizeText(text, file, options).map((d) => `${d.rule}@${d.line}:${d.column}`);
}

/** Rule ids only. */
export function rules(text: string, options?: SanitizeOptions): string[] {
  return sanitizeText(text, "knowledge/entry.md", options).map((d) => d.rule);
}

/**
 * Assemble secret-shaped test strings at run time, so this repository never contains a literal
 * token that secret scanners (or cairn itself) would flag.
 */
export function fake(...parts: string[]): string {
  return parts.join("");
}

/** A deterministic pseudo-random alphanumeric string (no long runs, not "filler"). */
export function noise(length: number, alphabet = "aB3dE5gH7jK9mN2pQ4sT6vW8yZ1cF0"): string {
  let out = "";
  let state = length * 7919;
  for (let i = 0; i < length; i++) {
    state = (state * 1103515245 + 12345) % 2147483648;
    out += alphabet[(state >>> 16) % alphabet.length];
  }
  return out;
}
