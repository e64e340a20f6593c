/**
 * Sanitization (secrets, network identifiers, paths, deny patterns) and prompt injection over the
 * whole entry text, in one pass: the sanitizer masks what an earlier family reported so each piece of
 * text is reported once, by the most specific rule (see src/check/sanitize/index.ts). Then over the
 * entry as a prompt reads it, where that differs (src/check/sanitize/prompt-view.ts).
 */
import { idFromPath } from "../../entry/id.js";
import { SANITIZE_RULES, type SanitizeRule } from "../sanitize/rules.js";
import type { RuleCategory, RuleMeta, RuleModule } from "./types.js";

function categoryOf(rule: SanitizeRule): RuleCategory {
  if (rule.id === "prompt-injection" || rule.id === "hidden-text") return "injection";
  if (rule.id.startsWith("secret-") || rule.id === "url-credentials") return "secrets";
  if (rule.id === "absolute-path" || rule.id === "path-outside-repo") return "paths";
  if (rule.id === "deny-pattern") return "deny";
  return "network";
}

export const sanitizeRules: RuleModule = {
  name: "sanitize",
  rules: SANITIZE_RULES.map(
    (rule): RuleMeta => ({ id: rule.id, category: categoryOf(rule), severity: rule.severity, description: rule.description, gate: true, inline: false }),
  ),
  async create({ config }) {
    const [{ createSanitizer }, { sanitizeAsPrompted }] = await Promise.all([import("../sanitize/index.js"), import("../sanitize/prompt-view.js")]);
    const sanitize = createSanitizer({ allowHosts: config.allowHosts, denyPatterns: config.denyPatterns });
    return {
      entry: ({ file, text, entry, frontmatter }) => {
        if (text === undefined) return [];
        const found = sanitize(text, file);
        // The prompt reads the entry with its YAML decoded and the characters that hide text dropped: so do the rules.
        const fm = frontmatter ?? entry?.frontmatter;
        // The file name, and `id:` when it sets another: whichever is the id heads the entry in every prompt.
        const ids = [...new Set([idFromPath(file), ...(typeof fm?.id === "string" ? [fm.id] : [])])];
        return [...found, ...sanitizeAsPrompted(sanitize, text, file, fm, found, ids)];
      },
    };
  },
};
