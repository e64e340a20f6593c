/** `new` by the knowledge base: a valid entry written under an id no entry has, and its `created` event. */
import type { NewEntryInput, NewEntryResult } from "../types/entries.js";
import type { KbContext } from "./context.js";

/** Write a new, valid entry; refuses without evidence or verify steps, on a taken id or file name, or on sanitization errors. */
export async function newEntry(ctx: Pick<KbContext, "layout" | "config" | "today" | "repair" | "knowledge" | "append">, input: NewEntryInput): Promise<NewEntryResult> {
  await ctx.repair();
  const { planNewEntry, writeNewEntry } = await import("../lifecycle/create.js");
  const plan = await planNewEntry(ctx.layout, ctx.config, { ...input, today: ctx.today(), existing: (await ctx.knowledge()).byId });
  if (!plan.ok) return { kind: "refused", problems: plan.problems };
  await writeNewEntry(plan);
  await ctx.append([{ type: "created", entry: plan.id }]);
  return { kind: "created", id: plan.id, path: plan.rel, warnings: plan.warnings };
}
