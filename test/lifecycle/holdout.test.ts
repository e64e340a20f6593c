/** Holdout ("fresh eyes before archiving"): issue 7's starvation reproduction and the policy's guarantees. */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { holdoutRuns, resolveConfig } from "../../src/config.js";
import { decideHoldout } from "../../src/lifecycle/holdout.js";
import type { KnowledgeBase } from "../../src/knowledge-base.js";
import { cairn } from "../helpers/cli.js";
import { databaseEntries, entry, events, fm, project, snapshot, type Clock } from "./setup.js";

/** Only the `security` agent can find this pattern, and it is scoped to that agent: every re-discovery is primed. */
const SINGLE = {
  "knowledge/token-compare.md": entry("Session tokens are compared with === instead of a constant-time comparison.", { fm: fm("agents: [security]") }),
};
const FINDING = { agent: "security", text: "Session tokens are compared with === rather than in constant time.", evidence: "src/auth.ts:1-2, handleRequest()" };

/** One review: inject for security; the agent reports the pattern (re-flag when shown, re-discovery when not). */
async function review(kb: KnowledgeBase, clock: Clock, run: string) {
  clock.tick();
  const shown = await kb.inject({ run, agent: "security", keywords: ["session", "tokens"] });
  const recorded = await kb.recordFindings(run, [FINDING]);
  return { shown, recorded };
}

describe("holdout: the starvation reproduction", () => {
  it("spec-literal (holdout off): a true pattern only its one agent can find is primed every run and archived at run 10", async () => {
    const { kb, clock } = await project(SINGLE, { config: { holdout: "off" } });
    for (let run = 1; run <= 10; run++) {
      const { shown, recorded } = await review(kb, clock, `r${run}`);
      expect(shown.entries.map((e) => e.id)).toEqual(["token-compare"]);
      expect(recorded.confirmations[0]!.provenance).toBe("primed");
      expect(recorded.archived).toEqual(run === 10 ? ["token-compare"] : []);
    }
  });

  it("decayAfterRuns 1: the entry is shown in its one run (not withheld first), then archived as injected, never as primed-only", async () => {
    const { kb, clock } = await project(SINGLE, { config: { decayAfterRuns: 1 } });
    clock.tick();
    // Before: its first run was already its last chance, so it was withheld and then archived as "primed-only".
    expect((await kb.inject({ run: "r1", agent: "security", keywords: ["session", "tokens"] })).entries.map((e) => e.id)).toEqual(["token-compare"]);
    const recorded = await kb.recordFindings("r1", [FINDING]);
    expect(recorded.confirmations[0]!.provenance).toBe("primed");
    expect(recorded.archived).toEqual(["token-compare"]);
    const archived = (await events(kb)).find((e) => e.type === "archived") as { reason?: string } | undefined;
    expect(archived?.reason).toMatch(/injected in 1 runs without an independent confirmation/);
  });

  it("default: one run from decay the entry is withheld; the agent's re-discovery is then independent and saves it", async () => {
    const { kb, clock } = await project(SINGLE);
    for (let run = 1; run <= 9; run++) expect((await review(kb, clock, `r${run}`)).recorded.confirmations[0]!.provenance).toBe("primed");
    const before = (await kb.status()).entries[0]!;
    expect(before).toMatchObject({ unconfirmedRuns: 9, limit: "last-chance", holdoutRuns: 8 });
    const { shown, recorded } = await review(kb, clock, "r10");
    expect(shown.entries).toEqual([]);
    expect(shown.heldOut).toEqual([{ id: "token-compare", reason: expect.stringMatching(/^holdout: 9\/10 runs .*withheld \(run 1 of 8\)/) }]);
    expect((await events(kb)).filter((e) => e.type === "held-out")).toEqual([
      expect.objectContaining({ type: "held-out", run: "r10", agent: "security", entry: "token-compare", actor: "tester" }),
    ]);
    expect(recorded.confirmations[0]).toMatchObject({ entry: "token-compare", provenance: "independent" });
    expect(recorded.archived).toEqual([]);
    const after = (await kb.status()).entries[0]!;
    expect(after).toMatchObject({ unconfirmedRuns: 0, heldOutRuns: 0, limit: "window", evidence: "independent", holdout: { withheld: 1, found: 1 } });
  });

  it("a false positive that agents report only when shown is archived after its holdout runs, within the documented bound", async () => {
    const { kb, clock } = await project(SINGLE);
    let archivedAt = 0;
    for (let run = 1; run <= 20 && !archivedAt; run++) {
      clock.tick();
      const shown = await kb.inject({ run: `r${run}`, agent: "security", keywords: ["session", "tokens"] });
      // Reported when shown (primed), never found when withheld: it is not really there.
      const recorded = await kb.recordFindings(`r${run}`, shown.entries.length ? [FINDING] : []);
      if (recorded.archived.length) archivedAt = run;
    }
    // 9 injected runs, then 8 withheld ones: decayAfterRuns - 1 + holdoutRuns = 17, never more.
    expect(archivedAt).toBe(10 - 1 + 8);
    const archived = (await kb.status({ all: true })).entries[0]!;
    expect(archived).toMatchObject({ state: "archived", evidence: "primed-only", holdout: { withheld: 8, found: 0 } });
    expect(archived.archivedReason).toMatch(/withheld in 8 runs after 9 injected runs and never found independently \(primed-only\)/);
  });
});

describe("holdout: the policy", () => {
  it("is deterministic within a run: a repeated call and every other agent of the run see it withheld, one event per agent", async () => {
    const { kb, clock } = await project({ ...SINGLE, "knowledge/token-compare.md": entry("Session tokens are compared with === instead of a constant-time comparison.") }, { config: { decayAfterRuns: 2 } });
    await review(kb, clock, "r1");
    clock.tick();
    const first = await kb.inject({ run: "r2", agent: "security", keywords: ["session", "tokens"] });
    const again = await kb.inject({ run: "r2", agent: "security", keywords: ["session", "tokens"] });
    const other = await kb.inject({ run: "r2", agent: "performance", keywords: ["session", "tokens"] });
    expect([first, again, other].map((r) => [r.entries.length, r.heldOut.map((h) => h.id)])).toEqual([
      [0, ["token-compare"]],
      [0, ["token-compare"]],
      [0, ["token-compare"]],
    ]);
    const held = (await events(kb)).filter((e) => e.type === "held-out");
    expect(held.map((e) => e.type === "held-out" && `${e.run}/${e.agent}`)).toEqual(["r2/security", "r2/performance"]);
    // One run withheld it, whatever the number of agents and calls.
    expect((await kb.status()).entries[0]).toMatchObject({ unconfirmedRuns: 1, heldOutRuns: 1 });
  });

  it("never pushes an agent over the cap: a withheld entry's slot goes to the next one, and --dry-run shows it without writing", async () => {
    const files = databaseEntries(7);
    const { kb, root, clock } = await project(files, { config: { decayAfterRuns: 2 } });
    clock.tick();
    // db-1 alone gets a first run.
    await kb.inject({ run: "r1", agent: "a", keywords: ["database", "connections"], limit: 1 });
    clock.tick();
    const before = await snapshot(path.join(root, "knowledge"));
    const dry = await kb.inject({ run: "r2", agent: "a", keywords: ["database"], dryRun: true });
    expect(await snapshot(path.join(root, "knowledge"))).toEqual(before);
    expect(dry.heldOut.map((h) => h.id)).toEqual(["db-1"]);
    expect(dry.entries).toHaveLength(5);
    expect(dry.entries.map((e) => e.id)).not.toContain("db-1");
    const real = await kb.inject({ run: "r2", agent: "a", keywords: ["database"] });
    expect(real.entries.map((e) => e.id)).toEqual(dry.entries.map((e) => e.id));
    expect(real.remaining).toBe(0);
    // Another request gets nothing more; the same one again is a retry, answered with the same entries, recorded once.
    expect((await kb.inject({ run: "r2", agent: "a", keywords: ["database", "pools"] })).entries).toEqual([]);
    expect((await kb.inject({ run: "r2", agent: "a", keywords: ["database"] })).entries.map((e) => e.id)).toEqual(real.entries.map((e) => e.id));
    expect((await events(kb)).filter((e) => e.type === "injected" && e.run === "r2")).toHaveLength(1);
  });

  it("a crowded agent still tests an entry due for holdout: relevant but past the filled slots, it is withheld too", async () => {
    const { kb, clock } = await project(databaseEntries(3), { config: { decayAfterRuns: 2 } });
    clock.tick();
    expect((await kb.inject({ run: "r1", agent: "a", keywords: ["database", "connections"], limit: 1 })).entries.map((e) => e.id)).toEqual(["db-1"]);
    clock.tick();
    // db-2 ranks first and takes the one slot; db-1, due for holdout, ranks after it.
    const crowded = await kb.inject({ run: "r2", agent: "a", keywords: ["database", "transactions", "connections"], limit: 1 });
    expect(crowded.entries.map((e) => e.id)).toEqual(["db-2"]);
    expect(crowded.heldOut.map((h) => h.id)).toEqual(["db-1"]);
    expect((await kb.status()).entries.find((e) => e.id === "db-1")).toMatchObject({ unconfirmedRuns: 1, heldOutRuns: 1 });
  });

  it("decides from (run, agent, entry) and the ledger alone: the pure decision", () => {
    const config = { decayAfterRuns: 10, holdout: 0.8 as const };
    const base = { unconfirmedRuns: 0, heldOutRuns: 0, injectedThisRun: false, heldOutThisRun: false };
    expect(decideHoldout({ ...base, unconfirmedRuns: 8 }, config).kind).toBe("inject");
    expect(decideHoldout({ ...base, unconfirmedRuns: 9 }, config).kind).toBe("hold-out");
    expect(decideHoldout({ ...base, unconfirmedRuns: 9, heldOutRuns: 7 }, config).kind).toBe("hold-out");
    expect(decideHoldout({ ...base, unconfirmedRuns: 9, heldOutRuns: 8 }, config).kind).toBe("skip");
    expect(decideHoldout({ ...base, unconfirmedRuns: 10 }, config).kind).toBe("skip");
    expect(decideHoldout({ ...base, unconfirmedRuns: 9, injectedThisRun: true }, config).kind).toBe("inject");
    expect(decideHoldout({ ...base, heldOutThisRun: true }, config).kind).toBe("hold-out");
    // A review away from its code neither shows nor tests an entry due for holdout; one that withheld it in this run already keeps withholding it.
    expect(decideHoldout({ ...base, unconfirmedRuns: 9, awayFromChange: true }, config)).toEqual({ kind: "skip", reason: expect.stringMatching(/does not touch the files it cites/) });
    expect(decideHoldout({ ...base, unconfirmedRuns: 9, heldOutThisRun: true, awayFromChange: true }, config).kind).toBe("hold-out");
    expect(decideHoldout({ ...base, unconfirmedRuns: 8, awayFromChange: true }, config).kind).toBe("inject");
    expect(decideHoldout({ ...base, unconfirmedRuns: 9, awayFromChange: true }, { ...config, holdout: "off" }).kind).toBe("inject");
    expect(decideHoldout({ ...base, unconfirmedRuns: 9 }, { ...config, holdout: "off" }).kind).toBe("inject");
    expect(decideHoldout({ ...base, unconfirmedRuns: 10 }, { ...config, holdout: "off" }).kind).toBe("skip");
  });

  it("is configured as a share of decayAfterRuns, or off (the spec's literal rule)", () => {
    expect(resolveConfig({}).holdout).toBe(0.8);
    expect(holdoutRuns(resolveConfig({}))).toBe(8);
    expect(holdoutRuns(resolveConfig({ holdout: 0.7, decayAfterRuns: 10 }))).toBe(7);
    expect(holdoutRuns(resolveConfig({ holdout: 0.5, decayAfterRuns: 5 }))).toBe(3);
    expect(holdoutRuns(resolveConfig({ holdout: "off" }))).toBe(0);
    expect(holdoutRuns(resolveConfig({ holdout: 0 }))).toBe(0);
    expect(() => resolveConfig({ holdout: "sometimes" })).toThrow(/holdout/);
    expect(() => resolveConfig({ holdout: -1 })).toThrow(/holdout/);
  });

  it("an archived entry is neither withheld nor injected", async () => {
    const { kb, clock } = await project({
      "knowledge/archive/gone.md": entry("Database connections leak on every error path of the repository layer.", { fm: fm("archived: 2026-02-20", "archivedReason: decayed") }),
    });
    clock.tick();
    const result = await kb.inject({ run: "r1", agent: "a", keywords: ["database", "connections"] });
    expect([result.entries, result.heldOut]).toEqual([[], []]);
  });
});

/**
 * The integrity simulation's regression (README "Integrity, measured"): inject fills an agent's slots with entries
 * that match the review's words but cite files it does not change. An entry one run from decay was withheld in such
 * reviews and each one counted as its last-chance test, though no agent could re-find it there: true patterns only one
 * agent finds were archived as primed-only (seed 1, p 0.2: 4 of 8, and 3 of 6 that several agents find).
 */
describe("holdout: a review away from the entry's code tests nothing", () => {
  const AUTH = { "knowledge/token-compare.md": entry("Session tokens are compared with === instead of a constant-time comparison.", { evidence: "src/auth.ts:1-2, handleRequest() — the token check." }) };
  const BILLING = { "src/billing.ts": "export function charge() {\n  return 1;\n}\n" };
  const ask = (kb: KnowledgeBase, run: string, changedFiles?: string[]) =>
    kb.inject({ run, agent: "security", summary: "Session tokens are compared in the login path.", ...(changedFiles ? { changedFiles } : {}) });

  it("is neither shown nor withheld there, and its holdout runs wait for a review of its files", async () => {
    const { kb, root, clock } = await project({ ...AUTH, ...BILLING }, { config: { decayAfterRuns: 2 } });
    clock.tick();
    expect((await ask(kb, "r1", ["src/auth.ts"])).entries.map((e) => e.id)).toEqual(["token-compare"]);
    clock.tick();
    const away = await ask(kb, "r2", ["src/billing.ts"]);
    expect(away.entries).toEqual([]);
    expect(away.heldOut).toEqual([{ id: "token-compare", reason: expect.stringMatching(/^holdout: 1\/2 runs .*does not touch the files it cites, so it is neither shown nor tested here/) }]);
    expect((await events(kb)).filter((e) => e.type === "held-out")).toEqual([]);
    expect((await kb.status()).entries[0]).toMatchObject({ unconfirmedRuns: 1, heldOutRuns: 0, limit: "last-chance" });
    // A review of its file is a test: withheld and counted (an absolute path inside the repository names it too).
    clock.tick();
    const near = await ask(kb, "r3", [path.join(root, "src/auth.ts"), "src/billing.ts"]);
    expect(near.heldOut).toEqual([{ id: "token-compare", reason: expect.stringMatching(/withheld \(run 1 of 2\)/) }]);
    expect((await events(kb)).filter((e) => e.type === "held-out").map((e) => e.type === "held-out" && e.run)).toEqual(["r3"]);
    // search says why: the entry cites files the change does not touch.
    const response = await kb.search("session tokens compared", { changedFiles: ["src/billing.ts"] });
    expect(response.results[0]!.explain).toMatchObject({ awayFromChange: true });
    expect((await kb.search("session tokens compared", { changedFiles: ["src/auth.ts"] })).results[0]!.explain.awayFromChange).toBeUndefined();
    expect((await kb.search("session tokens compared")).results[0]!.explain.awayFromChange).toBeUndefined();
    const cli = await cairn(["search", "--root", root, "session tokens compared", "--explain", "--changed-files", "src/billing.ts"]);
    expect(cli.stdout).toMatch(/token-compare .* directory \(\+0\.05\), away /);
  });

  it("without changed files, or for an entry that cites only globs, every relevant review is a test (nothing says otherwise)", async () => {
    const heuristic = entry("Session tokens are compared with === instead of a constant-time comparison.", { evidence: "src/**/login*.ts — every login handler compares its token." });
    for (const [files, changed] of [
      [AUTH, undefined],
      [{ "knowledge/token-compare.md": heuristic }, ["src/billing.ts"]],
    ] as const) {
      const { kb, clock } = await project({ ...files, ...BILLING }, { config: { decayAfterRuns: 2 } });
      clock.tick();
      expect((await ask(kb, "r1", changed ? [...changed] : undefined)).entries.map((e) => e.id)).toEqual(["token-compare"]);
      clock.tick();
      const second = await ask(kb, "r2", changed ? [...changed] : undefined);
      expect(second.heldOut).toEqual([{ id: "token-compare", reason: expect.stringMatching(/withheld \(run 1 of 2\)/) }]);
      expect((await kb.status()).entries[0]).toMatchObject({ heldOutRuns: 1 });
    }
  });
});
