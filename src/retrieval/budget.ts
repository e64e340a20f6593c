/**
 * The token budget of one Knowledge Context. Entries are added in rank order while the whole block
 * (header included) fits; an entry that does not fit is skipped, never cut: a finding without its
 * evidence or verify steps would mislead, and a smaller entry further down may still fit.
 */
import { renderContextMarkdown, type ContextEntry } from "./context.js";
import { tokenCounter } from "./tokens.js";

export type Budgeted = { entries: ContextEntry[]; markdown: string; tokens: number; fits: boolean };

/** Render `entries` and count the block's tokens against `maxTokens` (an empty block is 0 tokens and loads no tokenizer). */
export async function fitToBudget(entries: ContextEntry[], maxTokens: number): Promise<Budgeted> {
  const markdown = renderContextMarkdown(entries);
  if (!markdown) return { entries, markdown, tokens: 0, fits: true };
  const count = await tokenCounter();
  const tokens = await count(markdown);
  return { entries, markdown, tokens, fits: tokens <= maxTokens };
}
