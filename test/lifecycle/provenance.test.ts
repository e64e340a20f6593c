/** Issue 7 "Primed means primed" and "Provenance inputs are checked": every reproduction. */
import { describe, expect, it } from "vitest";
import { openKnowledgeBase } from "../../src/knowledge-base.js";
import { entry, events, fm, project, read } from "./setup.js";

const files = {
  "knowledge/auth-ctx.md": entry("Auth middleware often swallows context cancellation errors — check for ctx.Err() after upstream calls."),
  "knowledge/sql-concat.md": entry("SQL statements built by string concatenation allow injection; use parameterised queries.", { evidence: "src/auth.ts — the query helpers" }),
};
const AUTH_FINDING = "Auth middleware swallows context cancellation errors after upstream calls.";

describe("primed means primed", () => {
  it("a finding is primed when it matches ANY entry injected into that agent in that run, not only its best match (laundering)", async () => {
    const { kb } = await project({
      // Two close entries: the agent is shown the first; its paraphrase matches the second best.
      "knowledge/retry-a.md": entry("Clients retry failed upstream calls immediately without backoff or jitter.", { evidence: "src/auth.ts — the retry helper" }),
      "knowledge/retry-b.md": entry("Upstream calls are retried immediately by clients, with no backoff and no jitter, amplifying outages.", { evidence: "src/auth.ts — the client" }),
    }, { embedder: null });
    const shown = await kb.inject({ run: "r1", agent: "reliability", keywords: ["retry"], limit: 1 });
    expect(shown.entries.map((e) => e.id)).toEqual(["retry-a"]);
    const result = await kb.recordFindings("r1", [{ agent: "reliability", text: "Clients retry failed upstream calls immediately with no backoff and no jitter, amplifying outages." }]);
    expect(result.confirmations).toEqual([
      expect.objectContaining({ entry: "retry-b", provenance: "primed", primedBy: [expect.objectContaining({ entry: "retry-a" })] }),
    ]);
    // Nothing refreshed: retry-b's date is untouched.
    expect(await read(kb.layout.root, "knowledge/retry-b.md")).toContain("lastConfirmed: 2026-02-12");
  });

  it("agent names compare case- and whitespace-insensitively: `Security` after injecting `security` is primed, with no warning", async () => {
    const { kb } = await project(files);
    await kb.inject({ run: "r1", agent: "security", keywords: ["auth", "middleware", "cancellation"] });
    const result = await kb.recordFindings("r1", [{ agent: " Security ", text: AUTH_FINDING }]);
    expect(result.confirmations[0]).toMatchObject({ entry: "auth-ctx", provenance: "primed" });
    expect(result.warnings).toEqual([]);
    // Inner white space too: "Security Team" shown the entry and "SecurityTeam" re-finding it are one primed agent.
    await kb.inject({ run: "r2", agent: "Security Team", keywords: ["auth", "middleware", "cancellation"] });
    const spaced = await kb.recordFindings("r2", [{ agent: "SecurityTeam", text: AUTH_FINDING }]);
    expect(spaced.confirmations[0]).toMatchObject({ entry: "auth-ctx", provenance: "primed" });
    expect(spaced.warnings).toEqual([]);
    expect(await read(kb.layout.root, "knowledge/auth-ctx.md")).toContain("lastConfirmed: 2026-02-12");
    // A name read as it shows: what shows nothing, full-width letters, the long s and look-alike letters are one
    // agent with the name they imitate (each counted as independent, and refreshed lastConfirmed, before).
    const disguises = ["se\u200bc", "sec\u00ad", "sec\u2060", "\uff33\uff45\uff43", "\u017fec", "\u0455\u0435\u0441"];
    for (const [i, agent] of disguises.entries()) {
      await kb.inject({ run: `d${i}`, agent: "sec", keywords: ["auth", "middleware", "cancellation"] });
      const disguised = await kb.recordFindings(`d${i}`, [{ agent, text: AUTH_FINDING }]);
      expect({ agent, confirmation: disguised.confirmations[0] }).toMatchObject({ agent, confirmation: { entry: "auth-ctx", provenance: "primed" } });
      // And it gets no fresh cap of its own in that run: the entry counts as shown to it already.
      expect((await kb.inject({ run: `d${i}`, agent, keywords: ["auth", "middleware", "cancellation"], summary: "Auth middleware." })).entries).toEqual([]);
    }
    expect(await read(kb.layout.root, "knowledge/auth-ctx.md")).toContain("lastConfirmed: 2026-02-12");
    // A control character is no name at all: refused, saying which.
    await expect(kb.recordFindings("d0", [{ agent: "sec\u0000", text: AUTH_FINDING }])).rejects.toThrow(/agent must be printable text, not a control character \(U\+0000\)/);
    await expect(kb.compound("d0", [{ text: AUTH_FINDING, agents: ["sec", "\u200b"], evidence: ["src/auth.ts:1"], verify: ["x"], durable: true }])).rejects.toThrow(/an agent name must not be empty/);
  });

  it("compound does not count an agent primed by any injected entry, refuses duplicates by shared anchors and within one batch", async () => {
    const { kb } = await project(files);
    await kb.inject({ run: "r1", agent: "security", keywords: ["auth", "middleware", "cancellation"] });
    await kb.inject({ run: "r1", agent: "performance", keywords: ["nothing", "relevant"] });
    await kb.inject({ run: "r1", agent: "correctness", keywords: ["nothing", "relevant"] });
    const paraphrase = {
      // Different words, same place: a paraphrased re-flag that used to launder into a near-duplicate entry.
      text: "Cancelled requests keep running because the handler ignores the context's error state.",
      evidence: ["src/auth.ts:1-2, handleRequest() — ctx not checked"],
      verify: ["Check handleRequest for ctx.Err()."],
      durable: true,
    };
    const result = await kb.compound("r1", [
      { ...paraphrase, agents: ["security", "performance"] },
      { ...paraphrase, agents: ["performance", "correctness"] },
      { text: "Retry loops lack jitter and backoff.", agents: ["performance", "correctness"], evidence: ["src/auth.ts:2, handleRequest()"], verify: ["Look at the retry loop."], durable: true },
    ]);
    expect(result.created).toEqual([]);
    expect(result.skipped.map((s) => s.reason)).toEqual([
      expect.stringMatching(/^flagged independently by 1 agent; compounding needs 2\+ \(security had "auth-ctx" injected/),
      expect.stringMatching(/^duplicates active entry "auth-ctx"/),
      expect.stringMatching(/^duplicates active entry "auth-ctx"/),
    ]);
    const batch = await kb.compound("r2", [
      { text: "Export jobs drop write errors.", agents: ["a", "b"], evidence: ["src/auth.ts"], verify: ["Await the writes."], durable: true },
      { text: "Export jobs drop write errors silently.", agents: ["c", "d"], evidence: ["src/auth.ts"], verify: ["Await the writes."], durable: true },
    ]);
    expect(batch.created).toHaveLength(1);
    expect(batch.skipped[0]!.reason).toMatch(/^duplicates an earlier candidate of this batch/);
  });

  it("`check --duplicates` flags entries that share an evidence anchor", async () => {
    const { kb } = await project({
      "knowledge/a-ctx.md": entry("Auth middleware swallows context cancellation errors."),
      "knowledge/b-ctx.md": entry("Cancelled requests keep running: the handler ignores the context error."),
      "knowledge/c-file.md": entry("Query helpers concatenate SQL strings.", { evidence: "src/auth.ts — the query helpers" }),
    }, { embedder: null });
    const report = await kb.check({ duplicates: true });
    expect(report.diagnostics).toEqual([
      expect.objectContaining({ file: "knowledge/b-ctx.md", rule: "near-duplicate", severity: "warning", message: expect.stringMatching(/shares evidence anchor src\/auth\.ts:1-2 handleRequest with "a-ctx"/) }),
    ]);
  });
});

describe("provenance inputs are checked", () => {
  it("record --run pr-12 after inject --run pr-11: recorded, with a warning and a did-you-mean; strict refuses and writes nothing", async () => {
    const { kb } = await project(files);
    await kb.inject({ run: "pr-11", agent: "security", keywords: ["auth", "middleware"] });
    await expect(kb.recordFindings("pr-12", [{ agent: "security", text: AUTH_FINDING }], { strict: true })).rejects.toMatchObject({ code: "INVALID", message: expect.stringMatching(/refused \(strict\)/) });
    expect((await events(kb)).filter((e) => e.type === "confirmed")).toEqual([]);
    const result = await kb.recordFindings("pr-12", [{ agent: "security", text: AUTH_FINDING }]);
    expect(result.warnings).toEqual([expect.stringMatching(/^run "pr-12" has no recorded injection .*did you mean "pr-11"\?/)]);
    expect(result.confirmations[0]!.provenance).toBe("independent");
  });

  it("record after inject --dry-run, or for a made-up run, warns: nothing was recorded as injected", async () => {
    const { kb } = await project(files);
    await kb.inject({ run: "r1", agent: "security", keywords: ["auth", "middleware"], dryRun: true });
    expect((await kb.recordFindings("r1", [{ agent: "security", text: AUTH_FINDING }], { dryRun: true })).warnings).toEqual([
      expect.stringMatching(/^run "r1" has no recorded injection \(no inject call, only --dry-run, or another run id\)/),
    ]);
    expect((await kb.recordFindings("made-up", [{ agent: "x", text: "y" }], { dryRun: true })).warnings).toHaveLength(1);
  });

  it("an agent that got nothing in the run is warned about (did you mean); one that got an empty context is not", async () => {
    const { kb } = await project(files);
    await kb.inject({ run: "r1", agent: "security", keywords: ["auth", "middleware"] });
    const empty = await kb.inject({ run: "r1", agent: "performance", keywords: ["kubernetes"] });
    expect(empty.entries).toEqual([]);
    const result = await kb.recordFindings("r1", [
      { agent: "securty", text: "A typo'd agent name." },
      { agent: "performance", text: "Nothing was relevant to this agent." },
    ]);
    expect(result.warnings).toEqual([expect.stringMatching(/^agent "securty" has no recorded injection in run "r1" \(agents of this run: did you mean "security"\?\)/)]);
    expect(await kb.compound("r1", [], { strict: true })).toMatchObject({ created: [] });
    await expect(kb.compound("r1", [{ text: "t", agents: ["securty", "security"], evidence: ["src/auth.ts"], verify: ["v"], durable: true }], { strict: true })).rejects.toMatchObject({ code: "INVALID" });
  });

  it("a finding citing an unknown entry id gets did-you-mean suggestions", async () => {
    const { kb } = await project(files);
    const result = await kb.recordFindings("r1", [{ agent: "a", text: "t", entry: "auth-cxt" }], { dryRun: true });
    expect(result.unmatched).toEqual([expect.objectContaining({ reason: 'cites unknown entry "auth-cxt"; did you mean "auth-ctx"?', suggestions: ["auth-ctx"] })]);
  });

  it("library inputs are validated like CLI inputs: recordFindings([{agent}]) and inject({run: ''}) are errors, not no-ops", async () => {
    const { kb } = await project(files);
    await expect(kb.recordFindings("r1", [{ agent: "security" } as never])).rejects.toMatchObject({ code: "USAGE", message: expect.stringMatching(/0\.text/) });
    await expect(kb.recordFindings([{ agent: "security", text: "x" }] as never, [])).rejects.toMatchObject({ code: "USAGE", message: expect.stringMatching(/run/) });
    await expect(kb.recordFindings("  ", [])).rejects.toMatchObject({ code: "USAGE" });
    await expect(kb.inject({ run: "", agent: "security" })).rejects.toMatchObject({ code: "USAGE", message: expect.stringMatching(/run must not be empty/) });
    await expect(kb.inject({ run: "r1", agent: "security", changedfiles: ["x"] } as never)).rejects.toMatchObject({ code: "USAGE" });
    await expect(kb.compound("r1", [{ text: "t", agents: [] } as never])).rejects.toMatchObject({ code: "USAGE" });
    expect(await events(kb)).toEqual([]);
  });

  it("run ids are refused what hides or splits them (controls, zero-width and bidi characters, white space at the ends, over 200 characters), in every call", async () => {
    const { kb } = await project(files);
    const bad: Array<[string, RegExp]> = [
      ["pr-7\u200b", /run must not hold a character that shows nothing or reorders text \(U\+200B at position 5/],
      ["pr-\u202e7", /U\+202E/],
      ["pr-7\u001b[2J", /run must be printable text, not a control character \(U\+001B/],
      ["pr-7\n", /U\+000A/],
      ["pr-7 ", /run must not start or end with white space \(got "pr-7 "; use "pr-7"\)/],
      ["\u00a0pr-7", /white space/],
      ["x".repeat(201), /run must be at most 200 characters \(got 201\)/],
    ];
    for (const [run, message] of bad) {
      await expect(kb.inject({ run, agent: "security", keywords: ["auth"] }), JSON.stringify(run)).rejects.toMatchObject({ code: "USAGE", message: expect.stringMatching(message) });
      await expect(kb.recordFindings(run, [{ agent: "security", text: AUTH_FINDING }])).rejects.toMatchObject({ code: "USAGE", message: expect.stringMatching(message) });
      await expect(kb.compound(run, [])).rejects.toMatchObject({ code: "USAGE", message: expect.stringMatching(message) });
      await expect(kb.decay({ run })).rejects.toMatchObject({ code: "USAGE", message: expect.stringMatching(message) });
    }
    expect(await events(kb)).toEqual([]);
    expect((await kb.inject({ run: "x".repeat(200), agent: "security", keywords: ["auth"], dryRun: true })).run).toHaveLength(200);
  });

  it("run ids compare like agent names: a re-finding in run `pr-7` after an injection in run `PR-7` is primed, with no warning", async () => {
    const { kb } = await project(files);
    await kb.inject({ run: "PR-7", agent: "security", keywords: ["auth", "middleware", "cancellation"] });
    const result = await kb.recordFindings("pr-7", [{ agent: "security", text: AUTH_FINDING }]);
    expect(result.confirmations[0]).toMatchObject({ entry: "auth-ctx", provenance: "primed" });
    expect(result.warnings).toEqual([]);
    expect(await read(kb.layout.root, "knowledge/auth-ctx.md")).toContain("lastConfirmed: 2026-02-12");
    // One run, so one cap: the second spelling gets no fresh five slots.
    expect((await kb.inject({ run: "Pr-7", agent: "security", keywords: ["auth", "middleware", "cancellation"], summary: "Auth middleware." })).entries).toEqual([]);
  });

  it("a library config override is validated like cairn.config.json", async () => {
    const { root } = await project(files);
    await expect(openKnowledgeBase({ root, config: { decayAfterRuns: 0 } })).rejects.toMatchObject({ code: "CONFIG", message: expect.stringMatching(/decayAfterRuns/) });
    await expect(openKnowledgeBase({ root, config: { maxPerAgent: "7" } as never })).rejects.toMatchObject({ code: "CONFIG", message: expect.stringMatching(/maxPerAgent/) });
    await expect(openKnowledgeBase({ root, config: { knowledgeDir: "../elsewhere" } })).rejects.toMatchObject({ code: "CONFIG" });
    await expect(openKnowledgeBase({ root, config: { decayAftrRuns: 3 } as never })).rejects.toMatchObject({ code: "CONFIG" });
    expect((await openKnowledgeBase({ root, config: { maxPerAgent: 7, holdout: "off" } })).config).toMatchObject({ maxPerAgent: 7, holdout: "off", decayAfterRuns: 10 });
  });
});

describe("recurrence", () => {
  it("a finding matching an ARCHIVED entry (by its words, not a citation) restores it; the reason names the run and the agent", async () => {
    const { kb, root } = await project({
      "knowledge/archive/cron.md": entry("Cron jobs overlap when a run takes longer than the interval.", { fm: fm("archived: 2026-02-20", "archivedReason: decayed") }),
    });
    const result = await kb.recordFindings("r7", [{ agent: "ops", text: "Cron jobs overlap when one run takes longer than the interval." }]);
    expect(result).toMatchObject({ restored: ["cron"], confirmations: [expect.objectContaining({ entry: "cron", provenance: "independent", state: "restored" })] });
    expect(await read(root, "knowledge/cron.md")).toContain("lastConfirmed: 2026-03-01");
    expect((await events(kb)).find((e) => e.type === "restored")).toMatchObject({ entry: "cron", run: "r7", agent: "ops", reason: "recurred: independently re-found by ops in run r7" });
  });

  it("a primed finding of an entry archived since (by an earlier record of the run) is reported archived, not restored", async () => {
    const { kb, clock } = await project({ "knowledge/cron.md": entry("Cron jobs overlap when a run takes longer than the interval.") }, { config: { decayAfterRuns: 1, holdout: "off" } });
    clock.tick();
    await kb.inject({ run: "r1", agent: "ops", keywords: ["cron", "jobs"] });
    expect((await kb.recordFindings("r1", [])).archived).toEqual(["cron"]);
    const result = await kb.recordFindings("r1", [{ agent: "ops", text: "Cron jobs overlap when one run takes longer than the interval." }]);
    expect(result.confirmations).toEqual([expect.objectContaining({ entry: "cron", provenance: "primed", state: "archived" })]);
    expect(result.restored).toEqual([]);
  });
});
