/**
 * `record` (lifecycle rules 1–2): match each finding to at most one entry and decide its provenance.
 * planRecord is pure over its inputs; applyRecord performs the plan (surgical edits + ledger events).
 */
import { createHash } from "node:crypto";
import path from "node:path";
import { z } from "zod";
import type { Entry, Provenance } from "../entry/types.js";
import type { LedgerEvent, NewEvent } from "../ledger/index.js";
import { wasInjected } from "../ledger/index.js";
import { editEntryFile } from "../store/mutate.js";
import type { Layout } from "../store/layout.js";
import type { Match } from "./match.js";

export const findingSchema = z
  .object({
    agent: z.string().min(1, "agent must be a non-empty name"),
    text: z.string().min(1, "text must describe the finding"),
    entry: z.string().min(1).optional(),
    evidence: z.union([z.string(), z.array(z.string())]).optional(),
    verify: z.union([z.string(), z.array(z.string())]).optional(),
  })
  .passthrough();
export const recordInputSchema = z.object({ findings: z.array(findingSchema) }).passthrough();

export type Finding = z.infer<typeof findingSchema>;

export type Confirmation = { entry: string; agent: string; provenance: Provenance; score: number; finding: string; explicit: boolean };
export type Unmatched = { agent: string; text: string; reason: string; best?: { entry: string; score: number } };

export type RecordPlan = {
  confirmations: Confirmation[];
  unmatched: Unmatched[];
  /** Entries whose lastConfirmed/provenance are edited (independent confirmations of active entries). */
  edits: Array<{ id: string; path: string }>;
};

export type Matcher = (finding: Finding) => Promise<{ match: Match | null; best: Match | null }>;

export async function planRecord(
  run: string,
  findings: Finding[],
  byId: Map<string, Entry>,
  events: readonly LedgerEvent[],
  matcher: Matcher,
): Promise<RecordPlan> {
  const plan: RecordPlan = { confirmations: [], unmatched: [], edits: [] };
  for (const finding of findings) {
    let match: Match | null;
    let best: Match | null = null;
    const explicit = finding.entry !== undefined;
    if (explicit) {
      const entry = byId.get(finding.entry!);
      if (!entry) {
        plan.unmatched.push({ agent: finding.agent, text: finding.text, reason: `cites unknown entry "${finding.entry}"` });
        continue;
      }
      match = { id: entry.id, score: 1, state: entry.state };
    } else {
      ({ match, best } = await matcher(finding));
    }
    if (!match) {
      plan.unmatched.push({ agent: finding.agent, text: finding.text, reason: "no entry above the match threshold", ...(best ? { best: { entry: best.id, score: best.score } } : {}) });
      continue;
    }
    const entry = byId.get(match.id);
    if (!entry || entry.state !== "active") {
      plan.unmatched.push({ agent: finding.agent, text: finding.text, reason: `matches archived entry "${match.id}" (compounding restores it when 2+ agents flag it)`, best: { entry: match.id, score: match.score } });
      continue;
    }
    const provenance: Provenance = wasInjected(events, run, finding.agent, entry.id) ? "primed" : "independent";
    plan.confirmations.push({ entry: entry.id, agent: finding.agent, provenance, score: match.score, finding: finding.text, explicit });
    if (provenance === "independent" && !plan.edits.some((e) => e.id === entry.id)) plan.edits.push({ id: entry.id, path: entry.path });
  }
  return plan;
}

/** Independent: surgical edit (lastConfirmed today, provenance independent) + event. Primed: event only — the file is not touched. */
export async function applyRecord(layout: Layout, run: string, plan: RecordPlan, today: string, append: (events: NewEvent[]) => Promise<unknown>): Promise<void> {
  for (const edit of plan.edits) {
    await editEntryFile(layout, path.join(layout.root, edit.path), [
      { op: "set", key: "lastConfirmed", value: today },
      { op: "set", key: "provenance", value: "independent" },
    ]);
  }
  const events: NewEvent[] = plan.confirmations.map((c) => ({
    type: "confirmed",
    run,
    agent: c.agent,
    entry: c.entry,
    provenance: c.provenance,
    findingHash: createHash("sha256").update(c.finding).digest("hex").slice(0, 16),
    score: c.score,
  }));
  if (events.length) await append(events);
}
