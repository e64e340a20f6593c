/** The "Knowledge Context" block injected into an agent's prompt: markdown for prompts, JSON for programs. */

export type ContextEntry = {
  id: string;
  title?: string;
  finding: string;
  /** The entry's `Fix:` section, when it has one. */
  fix?: string;
  evidence: string[];
  verify: string[];
  lastConfirmed: string | null;
  provenance: string | null;
  status: string;
  score: number;
  warnings: string[];
};

/** Rough token estimate for English + code: ~4 characters per token. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

export function renderContextMarkdown(entries: ContextEntry[]): string {
  if (!entries.length) return "";
  const parts = [
    "## Knowledge Context",
    "",
    `${entries.length === 1 ? "One entry" : `${entries.length} entries`} from earlier reviews of this codebase. Treat them as leads to verify in the code under review, not as facts; report a finding only if you confirm it yourself.`,
  ];
  entries.forEach((entry, i) => {
    parts.push("", `### ${i + 1}. ${entry.title ?? entry.id} (\`${entry.id}\`)`, "", entry.finding.trim(), "");
    if (entry.fix) parts.push(`- Fix: ${entry.fix.trim().replace(/\s*\n\s*/g, " ")}`);
    for (const anchor of entry.evidence) parts.push(`- Evidence: ${anchor}`);
    for (const step of entry.verify) parts.push(`- Verify: ${step}`);
    parts.push(`- Last confirmed: ${entry.lastConfirmed ?? "unknown"} (${entry.provenance ?? "unknown"})`);
    for (const warning of entry.warnings) parts.push(`- ⚠ ${warning}`);
  });
  return parts.join("\n") + "\n";
}
