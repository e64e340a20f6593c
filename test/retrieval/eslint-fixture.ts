/**
 * A small ESLint-like repository for issue 10's reproduction: rules under lib/rules/, the linter
 * that rejects a fix from a rule without `meta.fixable`, knowledge entries anchored to both (four
 * with the broad glob `lib/rules/*.js`), and the diff of a PR that "adds an autofix to no-useless-concat".
 */
import { entryText } from "../helpers/fixture.js";

const LINTER = [
  '"use strict";',
  "",
  "function createReportTranslator(rule, ruleId) {",
  "  return function translate(problem) {",
  "    if (!problem.message) {",
  '      throw new TypeError("Missing `message` property in report() call.");',
  "    }",
  "    if (problem.fix && !(rule.meta && rule.meta.fixable)) {",
  '      throw new Error(`Fixable rules must set the \\`meta.fixable\\` property to "code" or "whitespace" (${ruleId}).`);',
  "    }",
  "    return { ruleId, message: problem.message, fix: problem.fix };",
  "  };",
  "}",
  "",
  "module.exports = { createReportTranslator };",
  "",
].join("\n");

const NO_USELESS_CONCAT = [
  '"use strict";',
  "",
  "module.exports = {",
  "  meta: {",
  '    type: "suggestion",',
  '    docs: { description: "Disallow unnecessary concatenation of literals or template literals" },',
  "    schema: [],",
  '    messages: { unexpectedConcat: "Unexpected string concatenation of literals." },',
  "  },",
  "  create(context) {",
  "    return {",
  "      BinaryExpression(node) {",
  '        if (node.operator !== "+") return;',
  "        if (isConcatenation(node.left, node.right)) {",
  '          context.report({ node, messageId: "unexpectedConcat" });',
  "        }",
  "      },",
  "    };",
  "  },",
  "};",
  "",
].join("\n");

/** `git diff` of the PR: meta gains `fixable`, the report gains a `fix`. */
export const AUTOFIX_DIFF = `diff --git a/lib/rules/no-useless-concat.js b/lib/rules/no-useless-concat.js
index 3b18e51..a1c9d2f 100644
--- a/lib/rules/no-useless-concat.js
+++ b/lib/rules/no-useless-concat.js
@@ -6,6 +6,7 @@ module.exports = {
     docs: { description: "Disallow unnecessary concatenation of literals or template literals" },
     schema: [],
     messages: { unexpectedConcat: "Unexpected string concatenation of literals." },
+    fixable: "code",
   },
   create(context) {
     return {
@@ -13,7 +14,13 @@ module.exports = {
         if (node.operator !== "+") return;
         if (isConcatenation(node.left, node.right)) {
-          context.report({ node, messageId: "unexpectedConcat" });
+          context.report({
+            node,
+            messageId: "unexpectedConcat",
+            fix(fixer) {
+              return fixer.replaceText(node, joinLiterals(node.left, node.right));
+            },
+          });
         }
       },
     };
`;

export const AUTOFIX_SUMMARY = "adds an autofix to no-useless-concat";

const GLOB = "lib/rules/*.js";

/** The repository: source files and entries. */
export const ESLINT_LIKE: Record<string, string> = {
  "lib/linter/linter.js": LINTER,
  "lib/rules/no-useless-concat.js": NO_USELESS_CONCAT,
  "lib/rules/no-extra-semi.js": '"use strict";\n\nmodule.exports = { meta: { type: "suggestion", schema: [] }, create() { return {}; } };\n',
  "knowledge/fixable-rules-declare-meta-fixable.md": entryText({
    fm: "lastConfirmed: 2026-02-12\nprovenance: independent\ntitle: A rule that reports a fix must declare meta.fixable",
    finding: "A rule whose report() carries a fix must declare `meta.fixable`; the linter throws at report time otherwise, so every file linted with that rule crashes.",
    evidence: "lib/linter/linter.js:8-10, createReportTranslator() — `if (problem.fix && !(rule.meta && rule.meta.fixable))` throws.",
    verify: "Check that the rule's meta object has `fixable` whenever a report passes `fix`.",
  }),
  "knowledge/rules-link-their-docs.md": entryText({
    finding: "Every rule's meta.docs should carry a url so editors can link to its documentation page.",
    evidence: `${GLOB} — meta.docs.url missing on older rules.`,
    verify: "Look for meta.docs without url in the rule module.",
  }),
  "knowledge/rules-declare-options-schema.md": entryText({
    finding: "Rules that take options must declare a JSON schema in meta.schema, or bad configuration passes silently.",
    evidence: `${GLOB} — meta.schema declared as an empty array while options are read.`,
    verify: "Compare context.options reads with meta.schema.",
  }),
  "knowledge/rules-use-message-ids.md": entryText({
    finding: "Rules report through messageId placeholders rather than inline message strings, so messages stay translatable and testable.",
    evidence: `${GLOB} — inline message strings in context.report calls.`,
    verify: "Grep context.report calls for a message property.",
  }),
  "knowledge/rule-tests-cover-invalid-code.md": entryText({
    finding: "Every rule's tests must include invalid cases with the exact reported messageIds, not only valid snippets.",
    evidence: `${GLOB} — rule modules whose tests lack invalid cases.`,
    verify: "Open the rule's test file and count invalid cases.",
  }),
  "knowledge/parser-options-ecma-version.md": entryText({
    finding: "Parser options default ecmaVersion to the latest year; pinning an old version rejects modern syntax in plugins.",
    evidence: "lib/linter/linter.js:3, createReportTranslator() — unrelated to options, kept as an anchor for the test.",
    verify: "Lint a file with optional chaining under the default parser options.",
  }),
};
