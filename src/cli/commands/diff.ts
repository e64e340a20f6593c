import type { KnowledgeBase } from "../../knowledge-base.js";
import { EXIT, json, terminalText, type Io } from "../output.js";

/** `cairn diff BASE [HEAD] [--json]`: a markdown (PR comment) or JSON summary of knowledge changes. Always exit 0. */
export async function diff(kb: KnowledgeBase, io: Io, base: string, head: string | undefined, opts: { json?: boolean }): Promise<number> {
  const { renderDiffMarkdown } = await import("../../diff/index.js");
  const result = await kb.diff(base, head);
  if (opts.json) return json(io, result), EXIT.ok;
  // Titles and findings of the changed entries are what the change wrote: read in a terminal or a PR comment, never obeyed.
  io.out(terminalText(renderDiffMarkdown(result), { lines: true }));
  return EXIT.ok;
}
