import { describe, expect, it } from "vitest";
import { resolveConfig } from "../src/config.js";
import { cairn } from "./helpers/cli.js";
import { entryText, SOURCE_FILES, testdir } from "./helpers/fixture.js";

function problems(raw: unknown): string {
  try {
    resolveConfig(raw);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("expected the config to be refused");
}

describe("cairn.config.json: did you mean", () => {
  it("names the closest known key for a misspelled one, at any depth", () => {
    expect(problems({ decayAfterRun: 3 })).toMatch(/decayAfterRun: unknown key\. Did you mean "decayAfterRuns"\?/);
    expect(problems({ sanitize: { allowHost: ["x.dev"] } })).toMatch(/sanitize\.allowHost: unknown key\. Did you mean "allowHosts"\? Known keys here: allowHosts, denyPatterns\./);
    expect(problems({ embedder: { provider: "transformers", model: "m", qantized: true } })).toMatch(/embedder\.qantized: unknown key\. Did you mean "quantized"\?/);
    expect(problems({ agents: { "fd-perf": { domain: ["performance"] } } })).toMatch(/agents\.fd-perf\.domain: unknown key\. Did you mean "domains"\?/);
    // Nothing close: no guess, just the known keys.
    const far = problems({ zzzzzzzz: 1 });
    expect(far).not.toMatch(/Did you mean/);
    expect(far).toMatch(/Known keys here: knowledgeDir, decayAfterRuns/);
  });

  it("accepts declared agents with domains", () => {
    expect(resolveConfig({ agents: { "fd-performance": { domains: ["performance"] }, "fd-*": {} } }).agents).toEqual({
      "fd-performance": { domains: ["performance"] },
      "fd-*": {},
    });
    expect(resolveConfig({}).agents).toEqual({});
    expect(problems({ agents: ["fd-performance"] })).toMatch(/agents: expected a map of agent name/);
  });

  it("the CLI reports a misspelled config key as a configuration error (exit 2) with the suggestion", async () => {
    const root = await testdir({ "cairn.config.json": JSON.stringify({ decayAfterRun: 5 }), "knowledge/.gitkeep": "" });
    const result = await cairn(["--root", root, "status"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/decayAfterRun: unknown key\. Did you mean "decayAfterRuns"\?/);
  });

  it("a NUL in knowledgeDir or a repos path is a configuration error (exit 2) naming the file and key, not an unexpected error", async () => {
    for (const [config, key] of [[{ knowledgeDir: "knowledge\u0000x" }, "knowledgeDir"], [{ repos: { other: "../o\u0000x" } }, "repos.other"]] as const) {
      const root = await testdir({ "cairn.config.json": JSON.stringify(config), "knowledge/.gitkeep": "" });
      for (const command of ["status", "check"]) {
        const result = await cairn(["--root", root, command]);
        expect(result.code, `${key} ${command}`).toBe(2);
        expect(result.stderr).toContain(`cairn: cairn.config.json: ${key} holds a NUL character (got "`);
        expect(result.stderr).not.toMatch(/unexpected error|please report/);
      }
    }
    expect(() => resolveConfig({ knowledgeDir: "k\u0000" })).toThrow(/knowledgeDir holds a NUL character/);
  });

  it("cairn check suggests the known frontmatter key for a misspelled one (`tagz` → `tags`)", async () => {
    const root = await testdir({
      ...SOURCE_FILES,
      "cairn.config.json": "{}",
      "knowledge/x.md": entryText({ fm: "lastConfirmed: 2026-02-12\nprovenance: independent\ntagz: [auth]" }),
    });
    const result = await cairn(["--root", root, "check", "--no-anchors"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/knowledge\/x\.md:4:1 warning frontmatter-unknown-key unknown key `tagz` is kept but not understood\. Did you mean `tags`\?/);
  });
});
