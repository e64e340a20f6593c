import type { KnowledgeBase } from "../../knowledge-base.js";
import { EXIT, json, terminalText, type Io } from "../output.js";

/**
 * `cairn diff BASE [HEAD] [--json]`: a markdown (PR comment) or JSON summary of knowledge changes. Exit 0, or 1 when
 * the change itself is an error (`problems`: ledger events rewritten or removed, a gating rule switched off in the
 * configuration), after printing the summary.
 */
export async function diff(kb: KnowledgeBase, io: Io, base: string, head: string | undefined, opts: { json?: boolean }): Promise<number> {
  const { diffFails, renderDiffMarkdown } = await import("../../diff/index.js");
  const result = await kb.diff(base, head);
  const code = diffFails(result) ? EXIT.failed : EXIT.ok;
  if (opts.json) return json(io, result), code;
  // Titles and findings of the changed entries are what the change wrote: read in a terminal or a PR comment, never obeyed.
  io.out(terminalText(renderDiffMarkdown(result), { lines: true }));
  return code;
}
