import { describe, expect, it } from "vitest";
import { compilePattern, type PatternSyntax } from "../../src/verify/pattern.js";
import { planStep } from "../../src/verify/steps.js";

describe("planStep: which verify steps are mechanical", () => {
  it.each([
    ["grep for `stat.*|| echo 0` in hooks/*.sh and scripts/*.sh.", ["stat.*|| echo 0"], ["hooks/*.sh", "scripts/*.sh"]],
    ["grep for `IFS='|'` or `cut -d'|'` in hooks/*.sh and scripts/*.sh.", ["IFS='|'", "cut -d'|'"], ["hooks/*.sh", "scripts/*.sh"]],
    ["grep for `set-state.*|| true` patterns in hooks/*.sh and check if the function returns a resource ID to callers.", ["set-state.*|| true"], ["hooks/*.sh"]],
    ["Search the codebase for `ctx.Err()` under middleware/", ["ctx.Err()"], ["middleware/**"]],
    ["look for `retryCount` in lib-retry.sh", ["retryCount"], ["**/lib-retry.sh"]],
    ["grep for `TODO(security)`", ["TODO(security)"], []],
  ])("%s", (step, patterns, paths) => {
    expect(planStep(step)).toEqual({ kind: "grep", patterns, syntax: "basic", ignoreCase: false, paths });
  });

  it("parses grep/rg commands in backticks without running them", () => {
    expect(planStep("Run `grep -rn 'ctx.Err()' middleware/` and read each hit")).toEqual({ kind: "grep", patterns: ["ctx.Err()"], syntax: "basic", ignoreCase: false, paths: ["middleware/**"] });
    expect(planStep("`rg -i -w 'retry_count' src`")).toEqual({ kind: "grep", patterns: ["\\b(?:retry_count)\\b"], syntax: "extended", ignoreCase: true, paths: ["src{,/**}"] });
    expect(planStep("`grep -F -e 'a.b' --include=*.go .`")).toEqual({ kind: "grep", patterns: ["a.b"], syntax: "fixed", ignoreCase: false, paths: ["**/*.go"] });
  });

  it.each([
    ["Cross-reference the architecture doc with the agent prompts.", "no search"],
    ["grep for ctx.Err() after http.Do() calls in middleware/*.go.", "no search"],
    ["grep for `x` in hooks/*.sh; there should be no matches.", "absent"],
    ["Check agents/review/*.md for `<example>` blocks.", "no search"],
    ["`grep -v foo src/`", "changes what a match means"],
    ["`grep foo src/ | wc -l`", "pipes"],
    ["`grep foo /etc/passwd`", "not a path inside the repository"],
    ["grep for `x` in the shim and the upstream", "not a path or glob"],
  ])("not mechanical: %s", (step, reason) => {
    const plan = planStep(step);
    expect(plan.kind).toBe("not-mechanical");
    expect(plan.kind === "not-mechanical" && plan.reason).toContain(reason);
  });
});

describe("compilePattern: grep's syntax on a linear-time engine", () => {
  const compile = (source: string, syntax: PatternSyntax = "basic") => {
    const result = compilePattern(source, syntax);
    if ("problem" in result) throw new Error(result.problem);
    return result.value;
  };

  it("basic syntax: | + ? ( ) { } are literal, their escaped forms are operators", () => {
    const stat = compile("stat.*|| echo 0");
    expect(stat.test('ts=$(stat -c %Y "$f" || echo 0)')).toBe(true);
    // In JavaScript syntax `||` would be an empty alternative matching every line.
    expect(stat.test('ts=$(stat -c %Y "$f" || echo "")')).toBe(false);
    expect(compile("a+").test("aaa")).toBe(false);
    expect(compile("a\\+").test("aaa")).toBe(true);
    expect(compile("cat\\|dog").test("hotdog")).toBe(true);
    expect(compile("x\\{2\\}").test("xx")).toBe(true);
    expect(compile("f(x)").test("f(x)")).toBe(true);
    expect(compile("\\<err\\>").test("if err != nil")).toBe(true);
    expect(compile("\\<err\\>").test("errors")).toBe(false);
    expect(compile("*.sh").test("run *.sh")).toBe(true);
  });

  it("extended and fixed syntax", () => {
    expect(compile("a+|zz", "extended").test("aaa")).toBe(true);
    expect(compile("a.b", "fixed").test("axb")).toBe(false);
    expect(compile("a.b", "fixed").test("a.b")).toBe(true);
  });

  it("matches line by line like grep: a negated class or \\s never crosses a line", () => {
    expect(compile("a[^b]*c").test("a\nc")).toBe(false);
    expect(compile("a\\s*c").test("a\nc")).toBe(false);
    expect(compile("^c").lines("a\nc\nxc\nc", 5)).toEqual([2, 4]);
  });

  it("keeps a required literal as a cheap pre-filter", () => {
    expect(compile("stat.*|| echo 0").literal).toBe("|| echo 0");
    expect(compile("cat\\|dog").literal).toBe("");
    expect(compile("ab*c").literal).toBe("a");
  });

  it("is safe against catastrophic backtracking and refuses what RE2 cannot do", () => {
    const evil = compile("\\(a*\\)*b");
    const started = performance.now();
    expect(evil.test(`${"a".repeat(50_000)}!`)).toBe(false);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(compilePattern("\\(a\\)\\1", "basic")).toEqual({ problem: expect.stringContaining("back-references") });
    expect(compilePattern("x".repeat(501), "basic")).toEqual({ problem: expect.stringContaining("longer than 500") });
    expect(compilePattern("[abc", "basic")).toEqual({ problem: expect.stringContaining("unclosed `[`") });
  });
});

describe("findLiterals: many literals in one pass", () => {
  it("reports each literal's files once, never across a file boundary", async () => {
    const { findLiterals } = await import("../../src/verify/multi-search.js");
    const files = ["abc stat || echo 0\n", "nothing here\n", "echo 0 and abc\n", "ab", "c d"].map((f) => Buffer.from(f));
    const hits = findLiterals(files, ["abc", "|| echo 0", "echo 0", "here\n\n", "missing", "c d", "日本"]);
    expect(Object.fromEntries(hits)).toEqual({ abc: [0, 2], "|| echo 0": [0], "echo 0": [0, 2], "here\n\n": [], missing: [], "c d": [4], 日本: [] });
  });

  it("agrees with Buffer.indexOf on random text and literals (bytes outside every literal included)", async () => {
    const { findLiterals } = await import("../../src/verify/multi-search.js");
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
    const alphabet = "ab|.é日 \n";
    const text = (n: number) => Array.from({ length: n }, () => alphabet[rand(alphabet.length)]).join("");
    const files = Array.from({ length: 60 }, () => Buffer.from(text(rand(200))));
    const literals = Array.from({ length: 40 }, () => text(1 + rand(4)));
    const hits = findLiterals(files, literals);
    for (const literal of new Set(literals)) {
      const expected = files.flatMap((f, i) => (f.includes(Buffer.from(literal)) ? [i] : []));
      expect([literal, hits.get(literal)]).toEqual([literal, expected]);
    }
  });
});
