import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { cairn } from "../helpers/cli.js";
import { entryText, SOURCE_FILES, testdir } from "../helpers/fixture.js";

const require = createRequire(import.meta.url);
// Both packages are CommonJS whose module.exports is the default export.
const Ajv = require("ajv-draft-04") as typeof import("ajv-draft-04").default;
const addFormats = require("ajv-formats") as typeof import("ajv-formats").default;

// The official SARIF 2.1.0 (rtm.5) JSON Schema, as shipped by Microsoft's @microsoft/jest-sarif (draft-04).
const schema = require("@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json") as Record<string, unknown>;
// The schema has one pattern that is invalid with the `u` flag (`…{2}]?$`): compile patterns without it.
const ajv = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false });
addFormats(ajv);
const validate = ajv.compile(schema);

function problems(log: unknown): string[] {
  return validate(log) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

describe("cairn check --format sarif", () => {
  it("writes a SARIF 2.1.0 log that validates against the official schema, one result per diagnostic", async () => {
    const root = await testdir({
      ...SOURCE_FILES,
      "cairn.config.json": "{}",
      "knowledge/good.md": entryText(),
      "knowledge/bad date.md": entryText({ fm: "lastConfirmed: yesterday\nprovenance: independent\ntagz: [x]" }),
      "knowledge/drift.md": entryText({ evidence: "src/gone.ts:40-52, handleRequest() — the file was deleted" }),
      "knowledge/ünïcode.md": entryText({ finding: "Tokens like AKIAIOSFODNN7EXAMPLE must never be stored; rotate them." }),
    });
    const human = await cairn(["--root", root, "check", "--json"]);
    const expected = JSON.parse(human.stdout) as { diagnostics: Array<{ file: string; line: number; column: number; rule: string; severity: string; message: string }> };
    expect(expected.diagnostics.length).toBeGreaterThanOrEqual(4);

    const result = await cairn(["--root", root, "check", "--format", "sarif"]);
    expect(result.code).toBe(1); // errors still fail the check
    const log = JSON.parse(result.stdout);
    expect(problems(log)).toEqual([]);
    expect(log.version).toBe("2.1.0");
    const run = log.runs[0];
    expect(run.tool.driver.name).toBe("cairn");
    const results = run.results as Array<{ ruleId: string; ruleIndex: number; level: string; message: { text: string }; locations: Array<{ physicalLocation: { artifactLocation: { uri: string; uriBaseId: string }; region: { startLine: number; startColumn: number } } }> }>;
    expect(results).toHaveLength(expected.diagnostics.length);
    for (const [i, d] of expected.diagnostics.entries()) {
      const r = results[i]!;
      expect(r.ruleId).toBe(d.rule);
      expect(run.tool.driver.rules[r.ruleIndex].id).toBe(d.rule);
      expect(r.level).toBe(d.severity);
      expect(r.message.text).toBe(d.message);
      const location = r.locations[0]!.physicalLocation;
      expect(decodeURI(location.artifactLocation.uri)).toBe(d.file);
      expect(location.artifactLocation.uriBaseId).toBe("%SRCROOT%");
      expect(location.region).toEqual({ startLine: d.line, startColumn: d.column });
    }
    expect(results.map((r) => r.ruleId)).toEqual(expect.arrayContaining(["frontmatter-invalid", "frontmatter-unknown-key", "anchor-unresolved"]));
    // No absolute path of this machine leaks into the log; secrets stay redacted as in every format.
    expect(result.stdout).not.toContain(root);
    expect(result.stdout).not.toContain("AKIAIOSFODNN7EXAMPLE");
  });

  it("a clean check is a valid log with no results (exit 0); the validator does reject a broken log", async () => {
    const root = await testdir({ ...SOURCE_FILES, "cairn.config.json": "{}", "knowledge/good.md": entryText() });
    const result = await cairn(["--root", root, "check", "--format", "sarif"]);
    expect(result.code).toBe(0);
    const log = JSON.parse(result.stdout);
    expect(problems(log)).toEqual([]);
    expect(log.runs[0].results).toEqual([]);
    // Not vacuous: the same log with a wrong version or a bad level is refused by the schema.
    expect(problems({ ...log, version: "2.0.0" })).not.toEqual([]);
    expect(problems({ ...log, runs: [{ ...log.runs[0], results: [{ message: { text: "x" }, level: "fatal" }] }] })).not.toEqual([]);
  });
});
