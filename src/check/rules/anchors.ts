/**
 * Evidence anchors resolved against the repository, through `anchorResolverFor(layout).resolve`
 * (src/check/anchors.ts): definitions, drift (moved, renamed, changed since the last confirmation),
 * bare names and anchors into configured sibling repositories. Anchor problems never withhold an
 * entry: `inject` attaches them as drift warnings. Default severities live with the resolver
 * (`ANCHOR_RULES` in src/anchors/types.ts), so there is one place for them.
 */
import { ANCHOR_RULES } from "../../anchors/types.js";
import { type RuleModule, rulesOf } from "./types.js";

const DESCRIPTIONS: Record<keyof typeof ANCHOR_RULES, string> = {
  "anchor-unresolved": "an evidence anchor whose path, line range or symbol is not in the repository",
  "anchor-outside-repo": "an evidence anchor that leaves the repository (absolute, `..`, or a symbolic link)",
  "anchor-moved": "the cited lines no longer hold the anchored definition; it moved to other lines (`check --fix` updates the range)",
  "anchor-renamed": "the anchored file or directory was renamed (git rename detection; `check --fix` updates the path)",
  "anchor-changed": "the anchored lines changed since the entry was last confirmed (fingerprint in the ledger)",
  "anchor-not-definition": "the anchored symbol is only used in the cited file; its definition is elsewhere",
  "anchor-ambiguous": "a bare file name matches several files in the repository",
  "anchor-external": "an anchor into another repository that cannot be checked here (no checkout configured or present)",
};

export const anchorRules: RuleModule = {
  name: "anchors",
  rules: rulesOf(
    "anchors",
    { gate: false },
    (Object.keys(ANCHOR_RULES) as Array<keyof typeof ANCHOR_RULES>).map((id) => [id, ANCHOR_RULES[id], DESCRIPTIONS[id]] as const),
  ),
  async create({ layout, config, options }) {
    if (options.anchors === false) return {};
    const { anchorResolverFor } = await import("../anchors.js");
    const resolver = anchorResolverFor(layout, { repos: config.repos });
    return {
      async entry({ file, entry }) {
        if (!entry) return [];
        const out = [];
        // The entry lets the resolver compare with the fingerprints of its last confirmation.
        for (const anchor of entry.evidence.anchors) out.push(...(await resolver.resolve(anchor, file, entry)));
        return out;
      },
    };
  },
};
