/** What the action reports: which problems annotate (and fail), the job summary, the sticky comment. Pure. */
import { code, lineText } from "../diff/markdown.js";
import type { Diagnostic } from "../entry/diagnostic.js";
import type { AnnotateScope } from "./context.js";
import type { ChangedFiles } from "./changed.js";

/** Hidden marker that identifies cairn's sticky comment among a pull request's comments. */
export const COMMENT_MARKER = "<!-- cairn:knowledge-pr-comment -->";

export type Scoped = {
  /** Problems that become annotations and decide the exit code. */
  annotated: Diagnostic[];
  /** Problems in files the pull request does not change (only listed in the summary). */
  elsewhere: Diagnostic[];
  /** True when `annotated` is limited to the files the pull request changes. */
  limited: boolean;
  /** Why everything is annotated although `changed` was asked, if so. */
  note?: string;
};

/**
 * Split problems by scope: with `changed`, only files the pull request changes are annotated. `ofTheChange` (the
 * knowledge diff's own problems: rewritten or removed ledger events) are made by the pull request itself, so they are
 * always annotated, even in a file it deleted.
 */
export function scopeDiagnostics(diagnostics: Diagnostic[], annotate: AnnotateScope, changed: ChangedFiles | undefined, ofTheChange: Diagnostic[] = []): Scoped {
  if (annotate === "all" || !changed) return { annotated: [...diagnostics, ...ofTheChange], elsewhere: [], limited: false };
  if (changed.kind === "unknown") {
    return { annotated: [...diagnostics, ...ofTheChange], elsewhere: [], limited: false, note: `could not tell which files the pull request changes, so every file is annotated: ${changed.reason}` };
  }
  return {
    annotated: [...diagnostics.filter((d) => changed.files.has(d.file)), ...ofTheChange],
    elsewhere: diagnostics.filter((d) => !changed.files.has(d.file)),
    limited: true,
  };
}

/** Errors, or warnings too when strict, among the annotated problems fail the job. */
export function fails(scoped: Scoped, strict: boolean): boolean {
  return scoped.annotated.some((d) => d.severity === "error" || strict);
}

function count(list: Diagnostic[]): string {
  const errors = list.filter((d) => d.severity === "error").length;
  const warnings = list.length - errors;
  return `${errors} error${errors === 1 ? "" : "s"}, ${warnings} warning${warnings === 1 ? "" : "s"}`;
}

function rows(list: Diagnostic[], limit = 50): string[] {
  // A message quotes the entry (a bad value, an unknown key): escaped as the diff's text is, so an entry cannot put
  // HTML, images or @mentions into the bot's comment. A file name goes into a code span that survives backticks.
  const shown = list.slice(0, limit).map((d) => `| ${code(`${d.file}:${d.line}`).replace(/\|/g, "\\|")} | ${d.severity} | ${code(d.rule)} | ${lineText(d.message, 400)} |`);
  const more = list.length > limit ? [`| … | | | ${list.length - limit} more (run \`cairn check\`) |`] : [];
  return ["| where | severity | rule | problem |", "|---|---|---|---|", ...shown, ...more];
}

/** The check section of the job summary and the comment. */
export function checkMarkdown(scoped: Scoped, options: { strict: boolean }): string {
  const scope = scoped.limited ? "in files this pull request changes" : "in the knowledge base";
  const lines = ["### cairn check", ""];
  if (!scoped.annotated.length) lines.push(`✅ No problems ${scope}.`);
  else lines.push(`${fails(scoped, options.strict) ? "❌" : "⚠️"} ${count(scoped.annotated)} ${scope}.`, "", ...rows(scoped.annotated));
  if (scoped.note) lines.push("", `> ${scoped.note}`);
  if (scoped.elsewhere.length) {
    lines.push(
      "",
      `<details><summary>${count(scoped.elsewhere)} in entries this pull request does not change (not annotated; often anchors that drifted because code moved)</summary>`,
      "",
      ...rows(scoped.elsewhere),
      "",
      "</details>",
    );
  }
  return lines.join("\n");
}

/** The body of the sticky pull request comment: the marker, the knowledge diff, the check result. */
export function commentBody(diffMarkdown: string | undefined, check: string): string {
  return [COMMENT_MARKER, diffMarkdown?.trim() || "_No knowledge changes in this pull request._", "", check].join("\n");
}
