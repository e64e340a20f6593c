import { describe, expect, it } from "vitest";
import { parseEntry } from "../../src/entry/parse.js";
import { entryText } from "../helpers/fixture.js";

const TODAY = "2026-03-01";
const parse = (text: string | Uint8Array, file = "knowledge/a.md") =>
  parseEntry(typeof text === "string" ? Buffer.from(text, "utf8") : text, { file, today: TODAY });
const rules = (text: string | Uint8Array) => parse(text).diagnostics.map((d) => `${d.rule}@${d.line}`);

describe("parseEntry: the format", () => {
  it("parses the DESIGN.md example: paragraph style, finding, anchor, verify step", () => {
    const { entry, diagnostics } = parse(
      "---\nlastConfirmed: 2026-02-12\nprovenance: independent\n---\nAuth middleware often swallows context cancellation errors — check for\nctx.Err() after upstream calls in middleware/*.go.\n\nEvidence: middleware/auth.go:47-52, handleRequest() — context.Err() not\nchecked after upstream call.\nVerify: grep for ctx.Err() after http.Do() calls in middleware/*.go.\n",
    );
    expect(diagnostics).toEqual([]);
    expect(entry?.id).toBe("a");
    expect(entry?.frontmatter).toMatchObject({ lastConfirmed: "2026-02-12", provenance: "independent" });
    expect(entry?.finding.text).toMatch(/^Auth middleware/);
    expect(entry?.finding.line).toBe(5);
    expect(entry?.evidence.anchors[0]).toMatchObject({ path: "middleware/auth.go", startLine: 47, endLine: 52, symbol: "handleRequest", line: 8 });
    expect(entry?.verify.steps).toEqual(["grep for ctx.Err() after http.Do() calls in middleware/*.go."]);
  });

  it("parses headed sections with lists", () => {
    const text = "---\nlastConfirmed: 2026-02-12\nprovenance: primed\ntitle: T\n---\n# Title in body\n\nThe finding.\n\n## Evidence\n\n- src/a.ts:3, foo()\n- src/b.ts\n\n## Verification\n\n1. run the tests\n2. grep for foo\n";
    const { entry, diagnostics } = parse(text);
    expect(diagnostics).toEqual([]);
    expect(entry?.finding.text).toBe("The finding.");
    expect(entry?.evidence.anchors.map((a) => a.path)).toEqual(["src/a.ts", "src/b.ts"]);
    expect(entry?.verify.steps).toEqual(["run the tests", "grep for foo"]);
  });

  it("does not take `Verify:` inside a code fence as a section marker", () => {
    const text = entryText({ finding: "Finding text.\n\n```\nVerify: not a marker\n```" });
    const { entry, diagnostics } = parse(text);
    expect(diagnostics).toEqual([]);
    expect(entry?.finding.text).toContain("Verify: not a marker");
  });

  it("keeps CRLF and BOM files parseable with correct lines", () => {
    const crlf = entryText().replace(/\n/g, "\r\n");
    expect(parse(crlf).diagnostics).toEqual([]);
    expect(parse("\uFEFF" + crlf).diagnostics).toEqual([]);
    expect(parse("\uFEFF" + crlf).entry?.evidence.anchors[0]?.line).toBe(7);
  });

  it("takes the id from frontmatter when given, else the file name", () => {
    expect(parse(entryText({ fm: "lastConfirmed: 2026-02-12\nprovenance: independent\nid: other-id" })).entry?.id).toBe("other-id");
    expect(parse(entryText(), "knowledge/archive/x-y.md").entry?.id).toBe("x-y");
  });
});

describe("parseEntry: bad input gets a precise diagnostic", () => {
  it("invalid YAML points at the YAML line", () => {
    const d = parse(entryText({ fm: "lastConfirmed: 2026-02-12\nprovenance: [independent\ntags: x" })).diagnostics;
    expect(d[0]?.rule).toBe("yaml-invalid");
    expect(d[0]?.line).toBeGreaterThanOrEqual(3);
  });

  it("frontmatter that is not a mapping", () => {
    expect(rules(entryText({ fm: "- a\n- b" }))).toEqual(["frontmatter-not-mapping@2"]);
  });

  it("missing opening and closing ---", () => {
    expect(rules("lastConfirmed: 2026-02-12\n\nbody")).toEqual(["frontmatter-missing@1"]);
    expect(rules("---\nlastConfirmed: 2026-02-12\nbody\n")).toEqual(["frontmatter-unterminated@1"]);
  });

  it("empty frontmatter and only frontmatter", () => {
    const onlyFm = rules("---\nlastConfirmed: 2026-02-12\nprovenance: independent\n---\n");
    expect(onlyFm).toEqual(expect.arrayContaining(["finding-missing@5", "evidence-missing@5", "verify-missing@5"]));
    expect(rules("---\n---\nbody\n")).toEqual(expect.arrayContaining(["frontmatter-required@2"]));
  });

  it("wrong types name the key's line and what was expected", () => {
    const d = parse(entryText({ fm: "title: x\nlastConfirmed: yesterday\nprovenance: maybe" })).diagnostics;
    expect(d.map((x) => `${x.rule}@${x.line}`)).toEqual(["frontmatter-invalid@3", "frontmatter-invalid@4"]);
    expect(d[0]?.message).toMatch(/YYYY-MM-DD/);
    expect(d[1]?.message).toMatch(/independent, primed/);
  });

  it("a future lastConfirmed and an impossible date", () => {
    expect(rules(entryText({ fm: "lastConfirmed: 2030-01-01\nprovenance: independent" }))).toEqual(["date-in-future@2"]);
    expect(rules(entryText({ fm: "lastConfirmed: 2026-02-30\nprovenance: independent" }))).toEqual(["frontmatter-invalid@2"]);
  });

  it("duplicate keys are a YAML error", () => {
    expect(rules(entryText({ fm: "lastConfirmed: 2026-02-12\nprovenance: independent\nprovenance: primed" }))[0]).toMatch(/^yaml-invalid@4/);
  });

  it("aliases that expand too far (a billion laughs) are invalid YAML at the first alias, never a thrown error", () => {
    const levels = ["a: &a [x, x, x, x, x, x, x, x, x, x]", ...Array.from({ length: 9 }, (_, i) => `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(10).fill(`*${String.fromCharCode(97 + i)}`).join(", ")}]`)];
    const result = parse(entryText({ fm: `lastConfirmed: 2026-02-12\nprovenance: independent\n${levels.join("\n")}` }));
    expect(result.entry).toBeUndefined();
    expect(result.diagnostics).toEqual([expect.objectContaining({ rule: "yaml-invalid", line: 5, column: 1, message: expect.stringMatching(/^invalid YAML: Excessive alias count .*; write the values out instead of `\*alias` references$/) })]);
  });

  it("unknown keys are warnings, kept", () => {
    const { entry, diagnostics } = parse(entryText({ fm: "lastConfirmed: 2026-02-12\nprovenance: independent\nlastConfimred: 2026-01-01" }));
    expect(diagnostics.map((d) => [d.rule, d.severity])).toEqual([["frontmatter-unknown-key", "warning"]]);
    expect(entry?.frontmatter.lastConfimred).toBe("2026-01-01");
  });

  it("empty, binary, non-UTF-8 and oversized files", () => {
    expect(rules("")).toEqual(["file-empty@1"]);
    expect(rules(new Uint8Array([0x2d, 0x2d, 0x2d, 0x0a, 0x00, 0x01]))).toEqual(["file-binary@2"]);
    const bad = Buffer.concat([Buffer.from(entryText().slice(0, 40)), Buffer.from([0xff, 0xfe]), Buffer.from("\n")]);
    expect(rules(bad)[0]).toMatch(/^encoding-invalid@/);
    expect(rules(Buffer.alloc(5 * 1024 * 1024, 0x61))).toEqual(["file-too-large@1"]);
  });

  it("missing evidence or verify sections, and evidence without an anchor", () => {
    expect(rules("---\nlastConfirmed: 2026-02-12\nprovenance: independent\n---\nJust a finding.\n")).toEqual(["evidence-missing@5", "verify-missing@5"]);
    expect(rules(entryText({ evidence: "it is somewhere in the code." }))).toEqual(["evidence-no-anchor@7"]);
  });

  it("frontmatter the surgical editor cannot change (flow mapping, indented keys, anchors) is an error, with the editor's reason", () => {
    const body = "The finding.\n\nEvidence: src/a.ts:1\nVerify: grep for a\n";
    const layouts: Array<[string, RegExp]> = [
      ["{lastConfirmed: 2026-02-12, provenance: independent}", /cannot tell which lines each key owns: line 2 is not a top-level `key: value` line/],
      ["  lastConfirmed: 2026-02-12\n  provenance: independent", /cannot tell which lines each key owns/],
      ["lastConfirmed: &d 2026-02-12\nprovenance: independent\ncreated: *d", /it uses YAML anchors and aliases/],
      ["lastConfirmed: 2026-02-12\r\r\nprovenance: independent", /line 2 contains a bare carriage return; expected LF or CRLF line endings/],
    ];
    for (const [frontmatter, reason] of layouts) {
      const { entry, diagnostics } = parse(`---\n${frontmatter}\n---\n${body}`);
      expect(entry?.frontmatter.lastConfirmed).toBe("2026-02-12");
      expect(diagnostics.map((d) => [d.rule, d.severity, d.line])).toEqual([["frontmatter-not-editable", "error", 2]]);
      expect(diagnostics[0]!.message).toMatch(reason);
    }
    // What cairn writes, with comments, quoting, block values and CRLF, stays editable.
    expect(rules(`---\r\nlastConfirmed: "2026-02-12"  # checked\r\nprovenance: independent\r\ntags:\r\n  - a\r\n  - b\r\nnote: |\r\n  two\r\n  lines\r\n---\r\n${body}`)).toEqual(["frontmatter-unknown-key@7"]);
  });

  it("more anchors than inject shows is a warning at the evidence, and the entry keeps every anchor", () => {
    const cited = (n: number) => Array.from({ length: n }, (_, i) => `- src/a.ts:${i + 1}`).join("\n");
    expect(rules(entryText({ evidence: cited(50) }))).toEqual([]);
    const { entry, diagnostics } = parse(entryText({ evidence: cited(51) }));
    expect(diagnostics.map((d) => [d.rule, d.severity, d.line])).toEqual([["evidence-too-many", "warning", 7]]);
    expect(diagnostics[0]!.message).toMatch(/^51 evidence anchors; inject shows an agent only the first 50/);
    expect(entry?.evidence.anchors).toHaveLength(51);
  });
});
