/**
 * Compounding (lifecycle rule 5): converging, durable findings of a run become entries; a finding
 * that matches an archived entry restores it instead. Runs after the review, off the critical path.
 */
import { z } from "zod";
import type { CairnConfig } from "../config.js";
import type { Entry } from "../entry/types.js";
import { refsOf } from "../check/references.js";
import { SANITIZE_RULES } from "../check/sanitize/rules.js";
import { slugify } from "../entry/render.js";
import type { LedgerEvent } from "../ledger/index.js";
import { wasInjected } from "../ledger/index.js";
import type { Layout } from "../store/layout.js";
import { planNewEntry, type NewEntryPlan } from "./create.js";
import type { Match } from "./match.js";

const list = z.union([z.string().min(1).transform((s) => [s]), z.array(z.string())]);
export const compoundFindingSchema = z
  .object({
    text: z.string().min(1, "text must describe the finding"),
    agents: z.array(z.string().min(1)).min(1, "agents must name at least one agent"),
    evidence: list.default([]),
    verify: list.default([]),
    durable: z.boolean().default(false),
    title: z.string().optional(),
    tags: z.array(z.string()).optional(),
  })
  .passthrough();
export const compoundInputSchema = z.object({ findings: z.array(compoundFindingSchema) }).passthrough();
export type CompoundFinding = z.infer<typeof compoundFindingSchema>;

const SANITIZE_RULE_IDS: ReadonlySet<string> = new Set(SANITIZE_RULES.map((r) => r.id));

export type CompoundStep =
  | { kind: "create"; finding: CompoundFinding; plan: Extract<NewEntryPlan, { ok: true }>; agents: string[] }
  | { kind: "restore"; finding: CompoundFinding; entry: Entry; agents: string[]; score: number }
  | { kind: "skip"; finding: CompoundFinding; reason: string };

export async function planCompound(
  deps: { layout: Layout; config: CairnConfig; today: string; byId: Map<string, Entry>; events: readonly LedgerEvent[] },
  run: string,
  findings: CompoundFinding[],
  matcher: (text: string) => Promise<{ match: Match | null; best: Match | null }>,
): Promise<CompoundStep[]> {
  const steps: CompoundStep[] = [];
  const slugs = new Set<string>();
  for (const finding of findings) {
    const skip = (reason: string) => steps.push({ kind: "skip", finding, reason });
    if (!finding.durable) {
      skip("not judged durable by the orchestrator");
      continue;
    }
    if (!finding.evidence.some((e) => e.trim())) {
      skip("no evidence anchors: evidence first");
      continue;
    }
    if (!finding.verify.some((v) => v.trim())) {
      skip("no verification steps");
      continue;
    }
    const { match } = await matcher(finding.text);
    const agents = [...new Set(finding.agents)];
    // Agents that had the matching entry injected in this run were primed: they do not count.
    const independent = match ? agents.filter((a) => !wasInjected(deps.events, run, a, match.id)) : agents;
    if (independent.length < 2) {
      const primed = agents.filter((a) => !independent.includes(a));
      skip(`flagged independently by ${independent.length} agent${independent.length === 1 ? "" : "s"}; compounding needs 2+${primed.length ? ` (${primed.join(", ")} had "${match!.id}" injected)` : ""}`);
      continue;
    }
    if (match?.state === "active") {
      skip(`duplicates active entry "${match.id}" (similarity ${match.score})`);
      continue;
    }
    if (match?.state === "archived") {
      const entry = deps.byId.get(match.id);
      if (entry && steps.some((s) => s.kind === "restore" && s.entry.id === entry.id)) {
        skip(`duplicates archived entry "${entry.id}", which an earlier finding of this run restores`);
        continue;
      }
      if (entry && entry.frontmatter.status === "superseded") {
        // superseded is terminal: the pattern lives on in its replacement, which stays the one to confirm.
        const by = refsOf(entry, "supersededBy");
        skip(`matches superseded entry "${entry.id}"${by.length ? ` (superseded by ${by.join(", ")})` : ""}; record the finding against its replacement instead`);
        continue;
      }
      if (entry) {
        steps.push({ kind: "restore", finding, entry, agents: independent, score: match.score });
        continue;
      }
    }
    let slug = slugify(finding.title ?? finding.text);
    for (let n = 2; slugs.has(slug) || deps.byId.has(slug); n++) slug = `${slugify(finding.title ?? finding.text).slice(0, 56)}-${n}`;
    const plan = await planNewEntry(deps.layout, deps.config, {
      slug,
      finding: finding.text,
      evidence: finding.evidence,
      verify: finding.verify,
      today: deps.today,
      ...(finding.title ? { title: finding.title } : {}),
      ...(finding.tags ? { tags: finding.tags } : {}),
    });
    if (!plan.ok) {
      const problems = typeof plan.problems === "string" ? plan.problems : plan.problems.map((d) => `${d.rule}: ${d.message}`).slice(0, 3).join("; ");
      const sanitization = typeof plan.problems !== "string" && plan.problems.some((d) => SANITIZE_RULE_IDS.has(d.rule));
      skip(`${sanitization ? "fails sanitization" : "would not be a valid entry"} — ${problems}`);
      continue;
    }
    // Nobody reviews an entry written by compounding before it reaches a prompt: text that instructs the agent is refused, not warned about.
    const injection = plan.warnings.find((d) => d.rule === "prompt-injection");
    if (injection) {
      skip(`fails sanitization — prompt-injection: ${injection.message}`);
      continue;
    }
    slugs.add(slug);
    steps.push({ kind: "create", finding, plan, agents: independent });
  }
  return steps;
}
