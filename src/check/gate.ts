/**
 * The inject gate, decided from an entry's final diagnostics: an error from a gating rule
 * (file, frontmatter, sections, sanitization, prompt injection) withholds the entry; anchor
 * problems never do, they travel with the entry as drift warnings.
 */
import type { Diagnostic } from "../entry/diagnostic.js";
import { ruleMeta } from "./rules/registry.js";

export type GateVerdict = {
  /** False when the entry must not reach a prompt. */
  injectable: boolean;
  /** The errors that withhold it (empty when injectable). */
  blocking: Diagnostic[];
  /** Anchor problems to attach to the injected entry as drift warnings. */
  drift: Diagnostic[];
};

/** `parsed`: the file could be read as an entry at all (otherwise it is never injectable). */
export function gateVerdict(diagnostics: readonly Diagnostic[], parsed: boolean): GateVerdict {
  const blocking = diagnostics.filter((d) => d.severity === "error" && (ruleMeta(d.rule)?.gate ?? false));
  const drift = diagnostics.filter((d) => ruleMeta(d.rule)?.category === "anchors");
  if (!parsed && blocking.length === 0) blocking.push(...diagnostics.filter((d) => d.severity === "error"));
  return { injectable: parsed && blocking.length === 0, blocking, drift };
}

/** "secret-github-token (line 9), frontmatter-invalid (line 3)": the rules that withhold an entry, for warnings. */
export function describeBlocking(blocking: ReadonlyArray<Pick<Diagnostic, "rule" | "line">>, max = 3): string {
  // Two findings of one rule on one line (two phrases of a prompt injection) are named once.
  const distinct = [...new Set(blocking.map((d) => `${d.rule} (line ${d.line})`))];
  return distinct.slice(0, max).join(", ") + (distinct.length > max ? ` and ${distinct.length - max} more` : "");
}
