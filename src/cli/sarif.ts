/**
 * `cairn check --format sarif`: diagnostics as a SARIF 2.1.0 log, for GitHub code scanning
 * (`github/codeql-action/upload-sarif`) and other SARIF viewers. Paths stay repository-relative
 * (`uriBaseId: %SRCROOT%`), so the log never carries the machine's absolute paths.
 */
import type { Diagnostic } from "../entry/diagnostic.js";
import { VERSION } from "../version.js";

const SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json";

type SarifRule = { id: string; name: string; shortDescription: { text: string }; defaultConfiguration: { level: "error" | "warning" } };

/** The SARIF log of `diagnostics` (one run, one rule per rule id seen, one result per diagnostic). */
export function toSarif(diagnostics: Diagnostic[]): Record<string, unknown> {
  const rules: SarifRule[] = [];
  const ruleIndex = new Map<string, number>();
  for (const d of diagnostics) {
    if (ruleIndex.has(d.rule)) continue;
    ruleIndex.set(d.rule, rules.length);
    rules.push({
      id: d.rule,
      name: pascal(d.rule),
      shortDescription: { text: `cairn check rule ${d.rule}` },
      defaultConfiguration: { level: d.severity },
    });
  }
  return {
    $schema: SCHEMA,
    version: "2.1.0",
    runs: [
      {
        tool: { driver: { name: "cairn", version: VERSION, semanticVersion: VERSION, rules } },
        // Columns count UTF-16 code units (JavaScript string offsets), as GitHub expects.
        columnKind: "utf16CodeUnits",
        results: diagnostics.map((d) => ({
          ruleId: d.rule,
          ruleIndex: ruleIndex.get(d.rule)!,
          level: d.severity,
          message: { text: d.message },
          locations: [
            {
              physicalLocation: {
                artifactLocation: { uri: encodeURI(d.file), uriBaseId: "%SRCROOT%" },
                region: { startLine: Math.max(1, d.line), startColumn: Math.max(1, d.column) },
              },
            },
          ],
        })),
      },
    ],
  };
}

/** `anchor-unresolved` → `AnchorUnresolved` (SARIF rule names are identifiers). */
function pascal(id: string): string {
  return id.replace(/(^|[^A-Za-z0-9]+)([A-Za-z0-9])/g, (_, __, c: string) => c.toUpperCase());
}
