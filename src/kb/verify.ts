/** `verify`: the mechanical verify steps of entries run in-process, changed results recorded in the ledger. */
import { lookup } from "../lifecycle/lookup.js";
import type { NotFound } from "../types/status.js";
import type { VerifyOptions, VerifyReport } from "../types/verify.js";
import type { KbContext } from "./context.js";

/** Run the mechanical verify steps of every (or the given) active entry in-process and record changed results as `verified` events. */
export async function verifyEntries(ctx: Pick<KbContext, "layout" | "ledger" | "append" | "load">, options: VerifyOptions = {}): Promise<VerifyReport | NotFound> {
  const { planVerify } = await import("../verify/index.js");
  const loaded = await ctx.load();
  let entries = loaded.entries.filter((e) => e.state === "active");
  if (options.ids?.length) {
    entries = [];
    for (const id of options.ids) {
      const found = lookup(loaded.byId, id);
      if (found.kind === "not-found") return { kind: "not-found", id, suggestions: found.suggestions };
      entries.push(found.entry);
    }
  }
  const plan = await planVerify(ctx.layout, entries, (await ctx.ledger.state()).state);
  if (!options.dryRun && plan.events.length) await ctx.append(plan.events);
  const count = (r: string) => plan.rows.filter((row) => row.result === r).length;
  return { entries: plan.rows.map((row) => (options.dryRun ? { ...row, recorded: false } : row)), passed: count("passed"), failed: count("failed"), notMechanical: count("not-mechanical"), dryRun: options.dryRun ?? false };
}
