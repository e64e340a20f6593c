import { describe, expect, it } from "vitest";
import { agentFilter, agentReach, unknownAgentWarning } from "../../src/retrieval/agents.js";
import { cairn } from "../helpers/cli.js";
import { entry, fm, project } from "../lifecycle/setup.js";

const FLUX = { "fd-performance": { domains: ["performance"] }, "fd-security": { domains: ["security", "auth"] } };

describe("agentFilter: an entry's agents: scopes by name, glob or declared domain", () => {
  it("matches names case- and whitespace-insensitively, globs over names, and domains the config declares", () => {
    const perf = agentFilter("FD-Performance ", FLUX);
    expect(perf([])).toBe(true); // no scope: every agent
    expect(perf(["fd-performance"])).toBe(true);
    expect(perf(["fd-*"])).toBe(true);
    expect(perf(["FD-PERF*"])).toBe(true);
    expect(perf(["performance"])).toBe(true); // a declared domain
    expect(perf(["Performance"])).toBe(true);
    expect(perf(["security"])).toBe(false); // fd-security's domain, not fd-performance's
    expect(perf(["fd-security", "docs-*"])).toBe(false);
    expect(perf(["security", "performance"])).toBe(true);
  });

  it("without declarations a domain reaches only an agent of that very name", () => {
    expect(agentFilter("fd-performance")(["performance"])).toBe(false);
    expect(agentFilter("performance")(["performance"])).toBe(true);
  });

  it("declarations may be globs: every matching agent gets their domains", () => {
    const declared = { "fd-*": { domains: ["review"] }, "fd-db": { domains: ["database"] } };
    expect(agentFilter("fd-db", declared)(["review"])).toBe(true);
    expect(agentFilter("fd-db", declared)(["database"])).toBe(true);
    expect(agentFilter("fd-ui", declared)(["database"])).toBe(false);
    expect(agentFilter("lint", declared)(["review"])).toBe(false);
  });

  it("agentReach tells declared, scoped and unknown agents apart, with suggestions", () => {
    expect(agentReach("fd-security", FLUX, [])).toEqual({ kind: "declared", domains: ["security", "auth"] });
    expect(agentReach("docs", {}, ["docs", "security"])).toEqual({ kind: "scoped" });
    expect(agentReach("fd-docs", {}, ["fd-*"])).toEqual({ kind: "scoped" });
    expect(agentReach("fd-perfomance", FLUX, ["performance"])).toEqual({ kind: "unknown", suggestions: ["fd-performance", "performance"] });
    expect(unknownAgentWarning("anyone", {}, [])).toBeUndefined(); // nothing is scoped: every entry reaches everyone
    expect(unknownAgentWarning("fd-security", FLUX, [])).toBeUndefined();
  });
});

describe("inject with agents by name, glob or domain (issue 11)", () => {
  const files = {
    "knowledge/perf-n-plus-one.md": entry("Order listing issues one database query per order line: an N+1 query pattern.", { fm: fm("agents: [performance]") }),
    "knowledge/fd-all-timeouts.md": entry("Outbound HTTP calls are made without a timeout and hang the order worker.", { fm: fm("agents: [fd-*]") }),
    "knowledge/sec-only.md": entry("Order ids in URLs are guessable; order access is not checked against the session.", { fm: fm("agents: [security]") }),
  };
  const keywords = ["order", "query", "timeout", "session"];

  it("an entry for the `performance` domain reaches fd-performance when the config declares that domain", async () => {
    const { kb } = await project(files, { config: { agents: FLUX } });
    const perf = await kb.inject({ run: "r1", agent: "fd-performance", keywords, dryRun: true });
    expect(perf.entries.map((e) => e.id).sort()).toEqual(["fd-all-timeouts", "perf-n-plus-one"]);
    expect(perf.warnings).toEqual([]);
    const sec = await kb.inject({ run: "r1", agent: "fd-security", keywords, dryRun: true });
    expect(sec.entries.map((e) => e.id).sort()).toEqual(["fd-all-timeouts", "sec-only"]);
  });

  it("without the declaration, fd-performance gets only the glob-scoped entry", async () => {
    const { kb } = await project(files);
    const perf = await kb.inject({ run: "r1", agent: "fd-performance", keywords, dryRun: true });
    expect(perf.entries.map((e) => e.id)).toEqual(["fd-all-timeouts"]);
  });

  it("says when the agent matches no declared agent or scope, instead of blaming the relevance floor", async () => {
    const { kb } = await project(files, { config: { agents: FLUX } });
    const result = await kb.inject({ run: "r1", agent: "perf-reviewer", keywords: ["order", "query"], dryRun: true });
    expect(result.entries).toEqual([]);
    expect(result.warnings.join("\n")).toMatch(/agent "perf-reviewer" matches no agent declared in cairn.config.json \(declared: fd-performance, fd-security\) and no entry's agents: scope/);
    // A known agent that simply has nothing relevant gets no such warning.
    const known = await kb.inject({ run: "r1", agent: "fd-security", keywords: ["kubernetes"], dryRun: true });
    expect(known.warnings).toEqual([]);
  });

  it("the CLI gives that reason too, not the relevance floor", async () => {
    const { root } = await project({ ...files, "cairn.config.json": JSON.stringify({ embedder: { provider: "none" }, agents: FLUX }) });
    const result = await cairn(["--root", root, "inject", "--run", "r1", "--agent", "perf-reviewr", "--keywords", "order,query", "--dry-run"]);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/warning: agent "perf-reviewr" matches no agent declared in cairn\.config\.json \(declared: fd-performance, fd-security\)/);
    expect(result.stderr).toMatch(/\(nothing injected for this agent: see the warning above\)/);
    expect(result.stderr).not.toMatch(/relevance floor/);
  });

  it("search --agent uses the same matching", async () => {
    const { kb } = await project(files, { config: { agents: FLUX } });
    const hits = await kb.search("order query timeout session", { agent: "fd-performance" });
    expect(hits.results.map((r) => r.id).sort()).toEqual(["fd-all-timeouts", "perf-n-plus-one"]);
  });
});
