import { describe, expect, it } from "vitest";
import { code, escapeText, renderDiffMarkdown } from "../../src/diff/markdown.js";
import type { DiffEntry, KnowledgeDiff } from "../../src/diff/types.js";

function empty(): KnowledgeDiff {
  return { base: "origin/main", head: "HEAD", baseCommit: "a".repeat(40), headCommit: "b".repeat(40), added: [], edited: [], confirmed: [], archived: [], restored: [], retracted: [], renamed: [], ledger: {}, ledgerEffects: [], warnings: [], problems: [] };
}

function entry(id: string, over: Partial<DiffEntry> = {}): DiffEntry {
  return { id, kinds: ["edited"], path: `knowledge/${id}.md`, state: "active", finding: `Finding of ${id}.`, sections: ["evidence"], ...over };
}

describe("renderDiffMarkdown", () => {
  it("says 'No knowledge changes.' for an empty diff", () => {
    expect(renderDiffMarkdown(empty())).toBe("## Knowledge changes (origin/main..HEAD)\n\nNo knowledge changes.\n");
  });

  it("caps long sections and says how many were left out", () => {
    const diff = { ...empty(), archived: Array.from({ length: 5 }, (_, i) => entry(`e${i}`, { kinds: ["archived"], state: "archived", archivedReason: "decayed" })) };
    const md = renderDiffMarkdown(diff, { maxPerSection: 2 });
    expect(md.match(/^- `e\d`/gm)).toEqual(["- `e0`", "- `e1`"]);
    expect(md).toContain("- … and 3 more (run `cairn diff` locally to see them all)");
    expect(md).toContain("**5 archived**");
    expect(md).toContain("- `e0` · `knowledge/e0.md` — Finding of e0. — archived: “decayed”");
  });

  it("truncates long findings at a word boundary and flags near decay", () => {
    const finding = "Word ".repeat(60).trim();
    const md = renderDiffMarkdown({ ...empty(), edited: [entry("long", { finding, lastConfirmed: "2026-01-01", decay: { unconfirmedRuns: 8, decayAfterRuns: 10, nearDecay: true } })] }, { findingLength: 40 });
    expect(md).toContain("- `long` · `knowledge/long.md` — Word Word Word Word Word Word Word… — evidence edited; last confirmed 2026-01-01; decay 8/10 ⚠️ near decay");
  });

  it("describes metadata, formatting and parse states of edits", () => {
    const md = renderDiffMarkdown({
      ...empty(),
      edited: [
        entry("m", { sections: ["finding", "evidence", "verify"], metadata: ["tags", "title"] }),
        entry("f", { sections: undefined, formattingOnly: true }),
        entry("x", { sections: undefined, unparsable: "base" }),
        entry("y", { sections: undefined, unparsable: "both", finding: "" }),
      ],
    });
    expect(md).toContain("— finding, evidence and verify edited; metadata changed: tags, title");
    expect(md).toContain("— formatting only");
    expect(md).toContain("— fixed (did not parse before)");
    expect(md).toContain("- `y` · `knowledge/y.md` — _(no finding)_ — changed (does not parse at either revision)");
  });

  it("escapes markdown and HTML in text, and defuses mentions and issue links", () => {
    expect(escapeText("a_b _x_ *y* <img src=x> [l](u) | ~s~ @bob #42 `c`")).toBe(
      "a_b \\_x\\_ \\*y\\* \\<img src=x\\> \\[l\\](u) \\| \\~s\\~ @&#8203;bob #&#8203;42 \\`c\\`",
    );
    const md = renderDiffMarkdown({ ...empty(), base: "<b>", warnings: ["check @team"] });
    expect(md.split("\n")[0]).toBe("## Knowledge changes (\\<b\\>..HEAD)");
    expect(md).toContain("### Warnings\n\n- ⚠️ check @&#8203;team");
  });

  it("a frontmatter key or value that holds line breaks stays on its entry's line: it cannot add a heading or a fake all-clear", () => {
    const forged = "reviewed\n\n### cairn check\n\n✅ No problems in the knowledge base.\n\n---\n\n";
    const md = renderDiffMarkdown({
      ...empty(),
      edited: [entry("m", { sections: undefined, metadata: [forged] })],
      confirmed: [entry("c", { kinds: ["confirmed"], confirmedFrom: "2026-01-01\n\n## Approved", lastConfirmed: "2026-02-01\n# x", provenance: "independent\n\n> quoted" })],
      archived: [entry("a", { kinds: ["archived"], state: "archived", archived: "2026-01-01\n\n---", archivedReason: "why\n\n### Approved" })],
    });
    expect(md.split("\n").filter((line) => /^(#|>|---|✅)/.test(line))).toEqual(["## Knowledge changes (origin/main..HEAD)", "### Archived (1)", "### Edited (1)", "### Confirmed (1)"]);
    expect(md).toContain("metadata changed: reviewed ### cairn check ✅ No problems in the knowledge…");
    // Character references are escaped too: `&#x40;` renders as itself, never as an @ that GitHub could turn into a mention.
    expect(escapeText("cc &#x40;octocat &commat;acme")).toBe("cc \\&#x40;octocat \\&commat;acme");
  });

  it("wraps values with backticks in a longer code fence", () => {
    expect(code("plain")).toBe("`plain`");
    expect(code("a`b")).toBe("``a`b``");
    expect(code("`x")).toBe("`` `x ``");
  });
});
