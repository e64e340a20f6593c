/** record, compound and decay: the after-review half of the loop. */
import type { KnowledgeBase, RecordResult } from "../../knowledge-base.js";
import { compoundInputSchema, recordInputSchema } from "../../lifecycle/inputs.js";
import { readJsonInput } from "../input.js";
import { EXIT, json, table, type Io } from "../output.js";

type Opts = { run: string; findings: string; dryRun?: boolean; strict?: boolean; json?: boolean };

export async function record(kb: KnowledgeBase, io: Io, opts: Opts): Promise<number> {
  const input = await readJsonInput(io, opts.findings, recordInputSchema, "findings", '{"findings":[{"agent":"security","text":"…","entry":"optional-id"}]}');
  const result = await kb.recordFindings(opts.run, input.findings, { dryRun: opts.dryRun ?? false, strict: opts.strict ?? false });
  if (opts.json) return json(io, result), EXIT.ok;
  for (const w of result.warnings) io.err(`warning: ${w}`);
  const dry = opts.dryRun ? " (dry run: nothing written)" : "";
  if (result.confirmations.length) {
    io.out(table(["entry", "agent", "provenance", "score", "effect"], result.confirmations.map((c) => [
      c.entry,
      c.agent,
      c.provenance,
      c.explicit ? "cited" : c.score.toFixed(3),
      effectOf(c),
    ])));
  }
  for (const a of result.alreadyRecorded) io.out(`already recorded (${a.agent}): ${truncate(a.text)} — counted once`);
  for (const u of result.unmatched) io.out(`unmatched (${u.agent}): ${truncate(u.text)} — ${u.reason}${u.best ? ` (best ${u.best.entry} ${u.best.score})` : ""}`);
  for (const id of result.archived) io.out(`archived ${id}: decayed after ${kb.config.decayAfterRuns} runs without independent confirmation`);
  io.out(`${result.confirmations.length} confirmation(s), ${result.unmatched.length} unmatched, ${result.alreadyRecorded.length} already recorded, ${result.restored.length} restored, ${result.archived.length} archived${dry}`);
  return EXIT.ok;
}

export async function compound(kb: KnowledgeBase, io: Io, opts: Opts): Promise<number> {
  const input = await readJsonInput(io, opts.findings, compoundInputSchema, "synthesized findings", '{"findings":[{"text":"…","agents":["a","b"],"evidence":["src/x.ts:1"],"verify":["…"],"durable":true}]}');
  const result = await kb.compound(opts.run, input.findings, { dryRun: opts.dryRun ?? false, strict: opts.strict ?? false });
  if (opts.json) return json(io, result), EXIT.ok;
  for (const w of result.warnings) io.err(`warning: ${w}`);
  for (const id of result.created) io.out(`created  ${id}`);
  for (const id of result.restored) io.out(`restored ${id} (the pattern recurred)`);
  for (const s of result.skipped) io.out(`skipped  ${truncate(s.text)} — ${s.reason}`);
  io.out(`${result.created.length} created, ${result.restored.length} restored, ${result.skipped.length} skipped${opts.dryRun ? " (dry run: nothing written)" : ""}`);
  return EXIT.ok;
}

export async function decay(kb: KnowledgeBase, io: Io, opts: { dryRun?: boolean; json?: boolean }): Promise<number> {
  const result = await kb.decay({ dryRun: opts.dryRun ?? false });
  if (opts.json) return json(io, result), EXIT.ok;
  for (const w of result.warnings) io.err(`warning: ${w}`);
  if (!result.archived.length) io.out(result.warnings.length ? "nothing archived (see the warnings above)" : "no entry is past its decay limit");
  for (const d of result.archived) io.out(`${opts.dryRun ? "would archive" : "archived"} ${d.id}: ${d.reason}`);
  return EXIT.ok;
}

function effectOf(c: RecordResult["confirmations"][number]): string {
  if (c.provenance === "primed") {
    const names = [...(c.primedBy ?? []).map((p) => p.entry), ...(c.primedByMissing ?? []).map((id) => `${id} (gone)`)];
    const by = names.length ? ` by ${names.join(", ")}` : "";
    return `event only (primed${by}: lastConfirmed unchanged)${c.state === "archived" ? "; the entry is archived" : ""}`;
  }
  return c.state === "restored" ? "restored from the archive (recurred), lastConfirmed → today" : "lastConfirmed → today";
}

function truncate(text: string): string {
  const one = text.replace(/\s+/g, " ").trim();
  return one.length > 80 ? `${one.slice(0, 77)}…` : one;
}
