import { describe, expect, it } from "vitest";
import { isCodeLine, splitRegions } from "../../../src/indexing/lexical/index.js";

describe("splitRegions", () => {
  it("treats fenced blocks and inline backticks as code, the rest of markdown as prose", () => {
    const md = "Checks for `x.len() == 0` in loops.\n\n```rust\nif v.len() == 0 {}\n```\nUse instead:\n";
    expect(splitRegions(md)).toEqual([
      { text: "Checks for ", code: false },
      { text: "x.len() == 0", code: true },
      { text: " in loops.\n", code: false },
      { text: "if v.len() == 0 {}", code: true },
      { text: "Use instead:\n", code: false },
    ]);
  });

  it("recognises code lines outside markdown by strong signals", () => {
    for (const line of ["let x = 1;", "fn main() {", "}", "#[allow(dead_code)]", "a => b,", "foo::bar", "x.unwrap()", "vec![1]", "// note"]) {
      expect(isCodeLine(line), line).toBe(true);
    }
  });

  it("keeps ordinary prose, including sentences with punctuation and parentheses, as prose", () => {
    for (const line of [
      "what similarity laws must be obeyed when constructing aeroelastic models .",
      "The function f(x) is positive, and m = 6 here.",
      "Why is this bad? It panics (sometimes).",
      "src/auth/middleware.go",
    ]) {
      expect(isCodeLine(line), line).toBe(false);
    }
  });

  it("handles CRLF and an unterminated fence", () => {
    expect(splitRegions("prose line\r\n```\r\nlet a = 1;\r\n")).toEqual([
      { text: "prose line", code: false },
      { text: "let a = 1;\n", code: true },
    ]);
  });
});
