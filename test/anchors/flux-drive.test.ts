/**
 * A flux-drive-shaped knowledge directory (written for this test, in the shapes of the real one):
 * paths mid-sentence, bare file names, `Fix:` paragraphs with code blocks, anchors into a sibling
 * repository, an invalid provenance value, a renamed directory and a missing document. `cairn
 * check` must report exactly the three true problems, and nothing else.
 */
import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { codeRepo } from "./setup.js";

const K = "config/flux-drive/knowledge";

function entry(body: string, provenance = "independent"): string {
  return `---\nlastConfirmed: 2026-02-10\nprovenance: ${provenance}\n---\n${body.trim()}\n`;
}

const AGENTS_MD = Array.from({ length: 140 }, (_, i) => (i === 126 ? "Agent descriptions must include <example> blocks" : `line ${i + 1}`)).join("\n") + "\n";

const CODE: Record<string, string> = {
  "AGENTS.md": AGENTS_MD,
  "skills/flux-drive/SKILL.md": "# Flux drive\n\n## Merge table\n\n| v1 | v2 |\n",
  "skills/flux-drive/phases/launch.md": "# Launch\n\n## Step 2.1a\n\nStart queries before dispatch.\n",
  "skills/flux-drive/phases/synthesize.md": "# Synthesize\n\nRead the Findings Index from each agent's file.\n",
  "skills/flux-drive/phases/shared-contracts.md": "# Shared contracts\n\n## Findings index\n",
  "hooks/lib-discovery.sh": 'staleness() {\n  ts=$(stat -c %Y "$plan_path" 2>/dev/null || echo "")\n  [ -n "$ts" ] || return 0\n}\n',
  "hooks/lib-sprint.sh": 'sprint_create() {\n  id=$(bd create)\n  bd set-state "$id" "phase=brainstorm" || { bd update "$id" --status=cancelled; return 0; }\n  bd set-state "$id" "history=created" 2>/dev/null || true\n}\n',
  "hooks/lib-gates.sh": "check_phase_gate() {\n  :\n}\n",
  "commands/sprint.md": "# Sprint\n\nCalls enforce_gate before each phase.\n",
  "agents/review/fd-v2-architecture.md": "---\ndescription: Architecture review\n---\n",
  "agents/review/fd-v2-safety.md": "---\ndescription: Safety review\n---\n",
  "docs/guides/old-dir/index.md": "# Guides\n",
  [`${K}/README.md`]: "# Knowledge\n\nNot an entry: README files are skipped.\n",
  [`${K}/agent-merge-accountability.md`]: entry(`
When consolidating agents, document where each retired agent's capabilities went; missing agents in the merge mapping cause confusion.

Evidence: the v2 merge listed agents that were absent from the merge table in skills/flux-drive/SKILL.md despite being in the v1 roster. The table showed 16 agents but claimed 19.

Verify: Count agents in the "before" roster vs agents listed in the merge mapping table.
`),
  [`${K}/shell-stat-fallback-epoch-zero.md`]: entry(`
Shell \`stat\` calls with \`|| echo 0\` turn errors into epoch 0, which compares as "very old" in timestamp checks.

Fix: Use \`|| echo ""\` and check for an empty string before numeric comparison. Empty = unknown, 0 = a false signal.

Evidence: hooks/lib-discovery.sh staleness check — \`stat -c %Y "$plan_path" || echo 0\` made deleted files appear stale. Changed to \`|| echo ""\` with a \`-n\` guard.
Verify: grep for \`stat.*|| echo 0\` in hooks/*.sh and scripts/*.sh.
`),
  [`${K}/multi-step-cli-init-rollback.md`]: entry(`
When a multi-step CLI initialisation fails halfway, the resource exists in an inconsistent state and callers assume success.

Fix: (1) check critical field writes and fail early, (2) cancel the resource on failure:
\`\`\`bash
bd set-state "$id" "phase=brainstorm" 2>/dev/null || {
    bd update "$id" --status=cancelled 2>/dev/null || true
    echo ""; return 0
}
# Evidence: hooks/not-a-real-anchor.sh:1 — inside a code block, not evidence
\`\`\`
Reserve \`|| true\` for non-critical fields only.

Evidence: sprint_create() in lib-sprint.sh originally used \`|| true\` on all 5 set-state calls; a mid-sequence failure leaves a zombie bead.
Verify: grep for \`set-state.*|| true\` patterns in hooks/*.sh and check if the function returns a resource ID to callers.
`),
  [`${K}/shim-function-mismatch-wrapper-pattern.md`]: entry(`
When a command calls a function that exists upstream but is not re-exported by the local shim, the call silently fails.

Fix: Add a wrapper in the consuming library that delegates when the upstream function exists:
\`\`\`bash
enforce_gate() {
    if type check_phase_gate &>/dev/null; then check_phase_gate "$@"; else return 0; fi
}
\`\`\`

Evidence: sprint.md referenced \`enforce_gate()\` which existed in interphase lib-gates.sh (line 4) but was not in Clavain's lib-gates.sh shim (only some functions re-exported).
Verify: For any shim pattern, compare exported function lists between shim and upstream: \`grep -oP '^\\w+\\(\\)' shim.sh\` vs the upstream.
`),
  [`${K}/documentation-implementation-format-divergence.md`]: entry(`
Architecture documentation drifts from the implementation when design decisions change mid-development.

Evidence: docs/research/flux-drive-v2-architecture.md describes "YAML frontmatter" as the agent output format, but skills/flux-drive/phases/synthesize.md reads a Findings Index and agents output markdown per shared-contracts.md.

Verify: Cross-reference the design decisions with the actual agent output formats in shared-contracts.md.
`),
  [`${K}/agent-description-example-blocks-required.md`]: entry(`
Agent descriptions must include concrete \`<example>\` blocks; this is documented in AGENTS.md lines 127-128.

Evidence: All fd-v2-*.md agents at line 3 (the description field) lack \`<example>\` blocks, while the v1 agents include them.

Verify: Check agents/review/*.md frontmatter description fields for \`<example>\` blocks.
`),
  [`${K}/aspirational-execution-instructions.md`]: entry(`
Orchestrator instructions should not describe execution patterns the execution model cannot perform.

Evidence: skills/flux-drive/phases/launch.md Step 2.1a instructs "start queries before dispatch" but the orchestrator runs tool calls sequentially.

Verify: Review dispatch instructions for concurrent or pipelined execution terminology.
`),
  [`${K}/executor-deviation-rules.md`]: entry(
    `
Executor agents need explicit autonomous decision boundaries, or they over-fix or stop on trivial blockers.

Evidence: the rules were adapted in the executing-plans SKILL.md of the sibling checkout, see interphase:skills/executing-plans/SKILL.md.
Verify: Check that the executing-plans SKILL.md contains a "Deviation Rules" section.
`,
    "compound",
  ),
  [`${K}/guides-layout.md`]: entry(`
Guides are split by audience, and each audience has an index page.

Evidence: docs/guides/old-dir/ — the guides; docs/guides/old-dir/index.md — the index page.
Verify: Open the guides index and check the audiences listed.
`),
};

const SIBLING: Record<string, string> = {
  "hooks/lib-gates.sh": "check_phase_gate() {\n  :\n}\nenforce_gate() {\n  check_phase_gate \"$@\"\n}\n",
  "skills/executing-plans/SKILL.md": "# Executing plans\n\n## Deviation Rules\n",
};

async function fluxDrive(withSibling: boolean) {
  const repo = await codeRepo(CODE, { knowledgeDir: K, repos: { interphase: "../interphase" } });
  // The guides directory was renamed after the entries were written.
  await mkdir(path.join(repo.dir, "docs/guides/new-dir"), { recursive: true });
  await rm(path.join(repo.dir, "docs/guides/new-dir"), { recursive: true });
  repo.git("mv", "docs/guides/old-dir", "docs/guides/new-dir");
  repo.commit("rename the guides directory");
  const sibling = path.join(path.dirname(repo.dir), "interphase");
  if (withSibling) {
    for (const [rel, text] of Object.entries(SIBLING)) {
      await mkdir(path.dirname(path.join(sibling, rel)), { recursive: true });
      await writeFile(path.join(sibling, rel), text);
    }
  }
  return { repo, cleanup: () => rm(sibling, { recursive: true, force: true }) };
}

const TRUE_PROBLEMS = [
  [`${K}/documentation-implementation-format-divergence.md`, "anchor-unresolved", "error"],
  [`${K}/executor-deviation-rules.md`, "frontmatter-invalid", "error"],
  [`${K}/guides-layout.md`, "anchor-renamed", "warning"],
  [`${K}/guides-layout.md`, "anchor-renamed", "warning"],
];

describe("a flux-drive knowledge directory", () => {
  it("with the sibling checkout present: exactly the true problems (invalid provenance, renamed directory, missing document)", async () => {
    const { repo, cleanup } = await fluxDrive(true);
    try {
      const report = await repo.kb.check();
      expect(report.diagnostics.map((d) => [d.file, d.rule, d.severity])).toEqual(TRUE_PROBLEMS);
      expect(report.files).toBe(9);
      const [missing, provenance, renamed] = report.diagnostics;
      expect(missing!.message).toContain("docs/research/flux-drive-v2-architecture.md matches no file");
      expect(provenance!.message).toContain("`provenance`");
      expect(renamed!.message).toContain("docs/guides/old-dir was renamed to docs/guides/new-dir");

      // --fix repairs the renamed directory; the other two need a human.
      await repo.kb.fixAnchors();
      const after = await repo.kb.check();
      expect(after.diagnostics.map((d) => d.rule)).toEqual(["anchor-unresolved", "frontmatter-invalid"]);
    } finally {
      await cleanup();
    }
  });

  it("without the sibling checkout (CI): the sibling anchors are reported as external warnings, not errors", async () => {
    const { repo } = await fluxDrive(false);
    const report = await repo.kb.check();
    expect(report.errors).toBe(2);
    const external = report.diagnostics.filter((d) => d.rule === "anchor-external");
    expect(external.map((d) => [path.basename(d.file), d.severity])).toEqual([
      ["executor-deviation-rules.md", "warning"],
      ["shim-function-mismatch-wrapper-pattern.md", "warning"],
    ]);
    expect(report.diagnostics.filter((d) => d.rule !== "anchor-external").map((d) => [d.file, d.rule, d.severity])).toEqual(TRUE_PROBLEMS);
  });

  it("verify runs the mechanical steps: the fixed epoch-0 fallback fails (likely fixed), the rollback pattern still passes", async () => {
    const { repo, cleanup } = await fluxDrive(true);
    try {
      const report = await repo.kb.verify({ dryRun: true });
      expect("entries" in report && report.entries.map((e) => [e.id, e.result])).toEqual([
        ["agent-description-example-blocks-required", "not-mechanical"],
        ["agent-merge-accountability", "not-mechanical"],
        ["aspirational-execution-instructions", "not-mechanical"],
        ["documentation-implementation-format-divergence", "not-mechanical"],
        ["executor-deviation-rules", "not-mechanical"],
        ["guides-layout", "not-mechanical"],
        ["multi-step-cli-init-rollback", "passed"],
        ["shell-stat-fallback-epoch-zero", "failed"],
        ["shim-function-mismatch-wrapper-pattern", "not-mechanical"],
      ]);
    } finally {
      await cleanup();
    }
  });
});
