/**
 * Evidence anchors resolved against the repository, through `anchorResolverFor(layout).resolve`
 * (src/check/anchors.ts). Anchor problems never withhold an entry: `inject` attaches them as drift warnings.
 */
import { type RuleModule, rulesOf } from "./types.js";

export const anchorRules: RuleModule = {
  name: "anchors",
  rules: rulesOf("anchors", { gate: false }, [
    ["anchor-unresolved", "error", "an evidence anchor whose path, line range or symbol is not in the repository"],
    ["anchor-outside-repo", "error", "an evidence anchor that leaves the repository (absolute, `..`, or a symbolic link)"],
  ]),
  async create({ layout, options }) {
    if (options.anchors === false) return {};
    const { anchorResolverFor } = await import("../anchors.js");
    const resolver = anchorResolverFor(layout);
    return {
      async entry({ file, entry }) {
        if (!entry) return [];
        const out = [];
        for (const anchor of entry.evidence.anchors) out.push(...(await resolver.resolve(anchor, file)));
        return out;
      },
    };
  },
};
