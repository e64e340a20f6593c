/** Issue 8, lifecycle half: `record` and `compound` are idempotent per (run, agent, finding); record survives a concurrent archive. */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { openKnowledgeBase } from "../../src/knowledge-base.js";
import { planRecord } from "../../src/lifecycle/record.js";
import { applyRecord } from "../../src/lifecycle/record-apply.js";
import { scoreCandidates } from "../../src/lifecycle/match.js";
import { changedLines, databaseEntries, entry, events, project, read } from "./setup.js";

const files = { "knowledge/auth-ctx.md": entry("Auth middleware often swallows context cancellation errors — check for ctx.Err() after upstream calls.") };
const FINDING = { agent: "security", text: "Auth middleware swallows context cancellation errors after upstream calls." };

describe("record is idempotent per (run, agent, finding)", () => {
  it("a retried call changes nothing twice and is not counted twice", async () => {
    const { kb, root } = await project(files);
    const first = await kb.recordFindings("r1", [FINDING, { ...FINDING, agent: "performance" }]);
    expect(first.confirmations).toHaveLength(2);
    const file = await read(root, "knowledge/auth-ctx.md");
    const retry = await kb.recordFindings("r1", [{ ...FINDING, agent: "SECURITY" }, { ...FINDING, agent: "performance" }, FINDING]);
    expect(retry.confirmations).toEqual([]);
    expect(retry.alreadyRecorded.map((a) => [a.index, a.entry])).toEqual([
      [0, "auth-ctx"],
      [1, "auth-ctx"],
      [2, "auth-ctx"],
    ]);
    expect(await read(root, "knowledge/auth-ctx.md")).toBe(file);
    expect((await events(kb)).filter((e) => e.type === "confirmed")).toHaveLength(2);
    expect((await kb.status()).entries[0]!.confirmations).toEqual({ independent: 2, primed: 0 });
    // The same finding in another run is a new confirmation.
    expect((await kb.recordFindings("r2", [FINDING])).confirmations).toHaveLength(1);
  });

  it("one text by one agent citing two entries confirms both; a retry, in a fresh process reading the ledger, confirms neither again", async () => {
    const two = { ...files, "knowledge/sql-concat.md": entry("SQL statements built by string concatenation allow injection.", { evidence: "src/auth.ts — the query helpers" }) };
    const { kb, root, clock } = await project(two);
    const same = [
      { agent: "sec", text: "Re-confirmed known issue.", entry: "auth-ctx" },
      { agent: "sec", text: "Re-confirmed known issue.", entry: "sql-concat" },
    ];
    const first = await kb.recordFindings("r1", same);
    expect(first.confirmations.map((c) => [c.entry, c.provenance])).toEqual([
      ["auth-ctx", "independent"],
      ["sql-concat", "independent"],
    ]);
    expect(first.alreadyRecorded).toEqual([]);
    expect(await read(root, "knowledge/sql-concat.md")).toContain(`lastConfirmed: ${clock.today()}`);
    const fresh = await openKnowledgeBase({ root, now: () => clock.now, embedder: null, actor: "other" });
    const retry = await fresh.recordFindings("r1", [...same, { agent: "SEC", text: "Re-confirmed known issue." }]);
    expect(retry.confirmations).toEqual([]);
    expect(retry.alreadyRecorded.map((a) => [a.index, a.entry])).toEqual([
      [0, "auth-ctx"],
      [1, "sql-concat"],
      [2, "sql-concat"],
    ]);
    expect((await events(fresh)).filter((e) => e.type === "confirmed").map((e) => e.entry)).toEqual(["auth-ctx", "sql-concat"]);
  });

  it("a duplicate within one call counts once", async () => {
    const { kb } = await project(files);
    const result = await kb.recordFindings("r1", [FINDING, { ...FINDING, text: `  ${FINDING.text}\n` }]);
    expect(result.confirmations).toHaveLength(1);
    expect(result.alreadyRecorded).toEqual([expect.objectContaining({ index: 1, entry: "auth-ctx" })]);
  });

  it("after a crash between the file edit and the event, the retry writes the event once and leaves the file as it is", async () => {
    const { kb, root, clock } = await project(files);
    // What the interrupted call had done: the surgical edit, no event.
    const abs = path.join(root, "knowledge/auth-ctx.md");
    await writeFile(abs, (await read(root, "knowledge/auth-ctx.md")).replace("lastConfirmed: 2026-02-12", `lastConfirmed: ${clock.today()}`));
    const edited = await read(root, "knowledge/auth-ctx.md");
    const retry = await kb.recordFindings("r1", [FINDING]);
    expect(retry.confirmations).toEqual([expect.objectContaining({ provenance: "independent" })]);
    expect(changedLines(edited, await read(root, "knowledge/auth-ctx.md"))).toEqual([]);
    expect((await events(kb)).filter((e) => e.type === "confirmed")).toHaveLength(1);
  });

  it("an entry archived by another process between plan and apply is restored where it now lives, not an I/O error", async () => {
    const { kb, root, clock } = await project(databaseEntries(1));
    const loaded = await kb.knowledge();
    const ledger = (await kb.ledger.read()).events;
    const run = { run: "r1" };
    const plan = await planRecord(
      { run, byId: loaded.byId, events: ledger, threshold: kb.config.matchThreshold, score: (f, ids) => scoreCandidates((q, o) => kb.search(q, o), f.text, { includeArchived: true, ...(ids ? { ids } : {}) }),
        scoreText: (text, ids) => scoreCandidates((q, o) => kb.search(q, o), text, { includeArchived: true, ids }),
      },
      [{ agent: "b", text: "Database connections are not released on error paths." }],
    );
    expect(plan.edits.map((e) => e.id)).toEqual(["db-1"]);
    // Meanwhile another process archives it.
    const other = await openKnowledgeBase({ root, now: () => clock.now, embedder: null, actor: "other" });
    expect(await other.archive("db-1", "decayed elsewhere")).toMatchObject({ kind: "done" });
    const warnings = await applyRecord({ layout: kb.layout, run, today: clock.today(), append: kb.append, reload: async (id) => (await kb.load()).byId.get(id) }, plan);
    expect(warnings).toEqual([expect.stringMatching(/"db-1" was archived while recording .*restored it/)]);
    expect(plan.confirmations).toEqual([expect.objectContaining({ entry: "db-1", provenance: "independent", state: "restored" })]);
    expect(await read(root, "knowledge/db-1.md")).toContain(`lastConfirmed: ${clock.today()}`);
    expect((await events(kb)).map((e) => e.type)).toEqual(["archived", "restored", "confirmed"]);
  });
});

describe("compound is idempotent per (run, finding)", () => {
  const CANDIDATE = {
    text: "Export jobs drop write errors because the write promise is never awaited.",
    agents: ["correctness", "reliability"],
    evidence: ["src/auth.ts — the export helpers"],
    verify: ["Await the writes."],
    durable: true,
  };

  it("a retried call creates nothing twice", async () => {
    const { kb } = await project(files);
    const first = await kb.compound("r1", [CANDIDATE]);
    expect(first.created).toHaveLength(1);
    const retry = await kb.compound("r1", [CANDIDATE]);
    expect(retry).toMatchObject({ created: [], restored: [], skipped: [{ text: CANDIDATE.text, reason: `already compounded in run r1 (entry "${first.created[0]}"); counted once` }] });
    expect((await events(kb)).filter((e) => e.type === "compounded")).toHaveLength(1);
  });

  it("after a crash between writing the entry and its event, the retry completes it: the event, no second file", async () => {
    const { kb, root } = await project(files);
    const dry = await kb.compound("r1", [CANDIDATE], { dryRun: true });
    const id = dry.created[0]!;
    // What the interrupted call had done: the file, no event.
    const { planNewEntry } = await import("../../src/lifecycle/create.js");
    const { createEntryFile } = await import("../../src/store/mutate.js");
    const plan = await planNewEntry(kb.layout, kb.config, { slug: id, finding: CANDIDATE.text, evidence: CANDIDATE.evidence, verify: CANDIDATE.verify, today: kb.today() });
    if (!plan.ok) throw new Error("plan failed");
    // (Since compound logs the file and its event as one change, only an older cairn leaves this; a kill now is repaired.)
    await createEntryFile(kb.layout, plan.abs, plan.text);
    const retry = await kb.compound("r1", [CANDIDATE]);
    expect(retry.created).toEqual([id]);
    expect((await events(kb)).filter((e) => e.type === "compounded")).toEqual([expect.objectContaining({ entry: id, run: "r1" })]);
    expect((await kb.load()).entries.map((e) => e.id).sort()).toEqual(["auth-ctx", id].sort());
    expect(await read(root, `knowledge/${id}.md`)).toBe(plan.text);
  });
});
