/** `new` by the knowledge base: a valid entry written under an id no entry has, and its `created` event. */
import type { NewEntryInput, NewEntryResult } from "../types/entries.js";
import type { KbContext } from "./context.js";

/** Write a new, valid entry; refuses without evidence or verify steps, on a taken id or file name, or on sanitization errors. */
export async function newEntry(ctx: Pick<KbContext, "layout" | "config" | "today" | "repair" | "knowledge" | "append">, input: NewEntryInput): Promise<NewEntryResult> {
  await ctx.repair();
  const { planNewEntry } = await import("../lifecycle/create.js");
  const plan = await planNewEntry(ctx.layout, ctx.config, { ...input, today: ctx.today(), existing: (await ctx.knowledge()).byId });
  if (!plan.ok) return { kind: "refused", problems: plan.problems };
  // The file and its `created` event as one logged change: killed between the two, the next command appends the event
  // (it was lost: the file existed, a second `new` refused the id, and history had no creation).
  const { applyChange } = await import("../lifecycle/change.js");
  const steps = [{ kind: "create" as const, path: plan.rel, text: plan.text }, { kind: "events" as const, events: [{ type: "created" as const, entry: plan.id }] }];
  const outcome = await applyChange(ctx.layout, { key: plan.id, steps }, ctx.append);
  if (outcome.kind === "stale") return { kind: "refused", problems: `a file named ${plan.id}.md was created meanwhile (${plan.rel}); choose another slug` };
  return { kind: "created", id: plan.id, path: plan.rel, warnings: plan.warnings };
}
