import { describe, expect, it } from "vitest";
import { createSanitizer, sanitizeText } from "../../../src/check/sanitize/index.js";
import { isCairnError } from "../../../src/errors.js";
import { hits } from "./helpers.js";

describe("deny-pattern", () => {
  const options = { denyPatterns: ["\\bacme\\b", "globex(?:corp)?", "müller\\s+gmbh"] };

  it("matches case-insensitively at the exact position", () => {
    expect(hits("The ACME billing job\nand Acme again", options)).toEqual(["deny-pattern@1:5", "deny-pattern@2:5"]);
  });

  it("respects the pattern's own word boundaries", () => {
    expect(hits("acmeish and pacme", options)).toEqual([]);
  });

  it("is Unicode-aware (case folding and non-ASCII letters)", () => {
    expect(hits("Contract with MÜLLER  GmbH", options)).toEqual(["deny-pattern@1:15"]);
  });

  it("names the pattern and the match and suggests a generic description", () => {
    const [d] = sanitizeText("Globexcorp reported it", "x.md", options);
    expect(d?.rule).toBe("deny-pattern");
    expect(d?.severity).toBe("error");
    expect(d?.message).toContain("Globexcorp");
    expect(d?.message).toContain("/globex(?:corp)?/");
    expect(d?.message).toContain("a customer");
  });

  it("also scans frontmatter, URLs and code", () => {
    const text = "---\ntitle: acme retries\n---\nSee `acmeClient` and https://example.com/acme/x\n";
    expect(hits(text, { denyPatterns: ["acme"] })).toEqual(["deny-pattern@2:8", "deny-pattern@4:6", "deny-pattern@4:42"]);
  });

  it("ignores zero-length matches without looping", () => {
    expect(hits("abc", { denyPatterns: ["x*", "(?=b)"] })).toEqual([]);
  });

  it("reports every pattern that matches", () => {
    expect(hits("acme", { denyPatterns: ["acme", "ac"] })).toEqual(["deny-pattern@1:1", "deny-pattern@1:1"]);
  });

  it("rejects an invalid pattern with a configuration error naming it", () => {
    let caught: unknown;
    try {
      createSanitizer({ denyPatterns: ["ok", "(unclosed"] });
    } catch (error) {
      caught = error;
    }
    expect(isCairnError(caught) && caught.code).toBe("CONFIG");
    expect((caught as Error).message).toContain("denyPatterns.1");
    expect((caught as Error).message).toContain("(unclosed");
    expect((caught as Error).cause).toBeInstanceOf(SyntaxError);
  });

  it("a pattern that repeats is matched in linear time (a pull request's config cannot stall check or the gate)", () => {
    // (a|a)+$ on 30 a's took 15-21 s with V8's backtracking, doubling with each one more (before: this test timed out).
    expect(hits(`${"a".repeat(5000)}!`, { denyPatterns: ["(a|a)+$", "(x+x+)+y"] })).toEqual([]);
    expect(hits("the Acme-Corp team, acme corp", { denyPatterns: ["acme[- ]?corp"] })).toEqual(["deny-pattern@1:5", "deny-pattern@1:21"]);
    expect(hits("Contract with MÜLLER  GmbH 😀 acmeee", { denyPatterns: ["m\\u00fcller\\s+gmbh", "acme+"] })).toEqual(["deny-pattern@1:15", "deny-pattern@1:31"]);
    // Lookaround with a repetition is not available in RE2: a configuration error that says why.
    let caught: unknown;
    try {
      createSanitizer({ denyPatterns: ["acme(?!-public)\\w*"] });
    } catch (error) {
      caught = error;
    }
    expect(isCairnError(caught) && caught.code).toBe("CONFIG");
    expect((caught as Error).message).toMatch(/denyPatterns\.0 .*matched in linear time by RE2, which has no lookaround/);
  });
});
