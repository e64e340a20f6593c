import { readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { planDecay } from "../../src/lifecycle/decay.js";
import type { KnowledgeBase } from "../../src/knowledge-base.js";
import { changedLines, databaseEntries, events, project, read, snapshot, type Clock } from "./setup.js";

/** These tests check the spec's literal rule; holdout (the default) has its own tests in holdout.test.ts. */
const LITERAL = { holdout: "off" as const };

const counter = async (kb: KnowledgeBase, id: string) => (await kb.status({ all: true })).entries.find((e) => e.id === id)!.unconfirmedRuns;

/** One review per day: `agents` each get the entries matching "database" (db-1 only when limit is 1). */
async function review(kb: KnowledgeBase, clock: Clock, run: string, agents: string[] = ["a"], calls = 1) {
  clock.tick();
  for (const agent of agents) for (let c = 0; c < calls; c++) await kb.inject({ run, agent, keywords: ["database", "connections"], limit: 1 });
}

describe("decay: the counter", () => {
  it("counts distinct runs that injected the entry after its last confirmation: several agents and calls in one run count once", async () => {
    const { kb, clock } = await project(databaseEntries(1), { config: LITERAL });
    await review(kb, clock, "r1", ["security", "performance", "style"], 2);
    expect(await counter(kb, "db-1")).toBe(1);
    await review(kb, clock, "r2", ["security"]);
    await review(kb, clock, "r3", ["performance", "style"]);
    expect(await counter(kb, "db-1")).toBe(3);
    const row = (await kb.status()).entries.find((e) => e.id === "db-1")!;
    expect(row).toMatchObject({ unconfirmedRuns: 3, decayAfterRuns: 10 });
  });

  it("an entry that is never injected never decays, however old its lastConfirmed", async () => {
    const { kb, clock } = await project(databaseEntries(2), { config: LITERAL });
    for (let i = 1; i <= 12; i++) await review(kb, clock, `r${i}`);
    expect(await counter(kb, "db-2")).toBe(0);
    expect((await kb.decay()).archived.map((c) => c.id)).toEqual(["db-1"]);
    expect((await kb.status()).entries.map((e) => e.id)).toEqual(["db-2"]);
  });

  it("injections on the day of a confirmation do not count: a lastConfirmed date lasts until the end of that UTC day", async () => {
    const { kb, clock } = await project(databaseEntries(1), { config: LITERAL });
    await review(kb, clock, "r1");
    await kb.confirm("db-1");
    await kb.inject({ run: "r2", agent: "a", keywords: ["database"] });
    expect(await counter(kb, "db-1")).toBe(0);
    await review(kb, clock, "r3");
    expect(await counter(kb, "db-1")).toBe(1);
  });
});

describe("decay: the ledger's times", () => {
  it("an event dated in the future is skipped with a warning naming its line: a forged 2099 confirmation does not stop decay", async () => {
    const { kb, root, clock } = await project(databaseEntries(1), { config: LITERAL });
    await review(kb, clock, "r1");
    const file = path.join(root, "knowledge/.ledger", (await readdir(path.join(root, "knowledge/.ledger"))).find((n) => n.endsWith(".jsonl"))!);
    const forged = { v: 1, eventId: "01ZZZZZZZZZZZZZZZZZZZZZZZ3", time: "2099-01-01T00:00:00.000Z", actor: "maintainer", type: "manual-confirmed", entry: "db-1" };
    await writeFile(file, `${await read(root, path.relative(root, file))}${JSON.stringify(forged)}\n`);
    const lines = (await read(root, path.relative(root, file))).trimEnd().split("\n").length;
    const { warnings } = await kb.ledger.read();
    expect(warnings.map((w) => [w.file, w.line, w.rule])).toEqual([[expect.stringContaining(path.basename(file)), lines, "ledger-invalid-line"]]);
    expect(warnings[0]!.message).toMatch(/dated 2099-01-01T00:00:00\.000Z, more than a day after this machine's clock \(\d{4}-\d\d-\d\d \d\d:\d\d UTC\)/);
    // The clock as it reads now (it said the clock plus the day of slack: tomorrow's date).
    const shown = /clock \((.+) UTC\)/.exec(warnings[0]!.message)![1]!;
    expect(Math.abs(Date.parse(`${shown.replace(" ", "T")}:00Z`) - Date.now())).toBeLessThan(120_000);
    // `check` (a pull request's CI) says so too.
    const checked = await kb.check();
    expect(checked.diagnostics.map((d) => [d.file, d.line, d.rule, d.severity])).toEqual([[path.relative(root, file), lines, "ledger-invalid-line", "warning"]]);
    expect(checked.diagnostics[0]!.message).toMatch(/^line skipped: dated 2099-01-01/);
    for (let run = 2; run <= 10; run++) await review(kb, clock, `r${run}`);
    expect(await counter(kb, "db-1")).toBe(10);
    expect((await kb.decay()).archived.map((c) => c.id)).toEqual(["db-1"]);
  });
});

describe("decay: archiving", () => {
  it("an archive it cannot make (the archive holds another entry's file of that name) is a warning, never reported as archived", async () => {
    const { kb, root, clock } = await project(databaseEntries(1), { config: { ...LITERAL, decayAfterRuns: 3 } });
    const other = (await read(root, "knowledge/db-1.md")).replace("lastConfirmed:", "id: db-1-old\narchived: 2026-01-01\nlastConfirmed:");
    await writeFile(path.join(root, "knowledge/archive/db-1.md"), other);
    // check says so before decay runs into it.
    expect((await kb.check()).diagnostics.filter((d) => d.rule === "archive-name-taken").map((d) => [d.file, d.severity, d.message])).toEqual([
      ["knowledge/db-1.md", "warning", expect.stringMatching(/^knowledge\/archive\/db-1\.md \(id "db-1-old"\) has this file's name: decay cannot archive this entry/)],
    ]);
    for (let run = 1; run <= 3; run++) await review(kb, clock, `r${run}`);
    for (let attempt = 0; attempt < 2; attempt++) {
      const result = await kb.decay();
      expect(result.archived).toEqual([]);
      expect(result.warnings).toEqual([expect.stringMatching(/^"db-1" was not archived: cannot move "db-1": knowledge\/archive\/db-1\.md already exists/)]);
    }
    expect(await read(root, "knowledge/archive/db-1.md")).toBe(other);
    expect((await events(kb)).filter((e) => e.type === "archived")).toEqual([]);
  });

  it("an entry hand-edited into frontmatter cairn cannot edit: check says so, decay archives the others and warns, nothing is left pending", async () => {
    const { kb, root, clock } = await project(databaseEntries(2), { config: { ...LITERAL, decayAfterRuns: 3 } });
    for (let run = 1; run <= 3; run++) {
      clock.tick();
      await kb.inject({ run: `r${run}`, agent: "a", keywords: ["database", "connections", "transactions"], limit: 2 });
    }
    for (const id of ["db-1", "db-2"]) expect(await counter(kb, id)).toBe(3);
    // After its third injection, someone rewrites db-2's frontmatter as one flow mapping (valid YAML).
    const text = await read(root, "knowledge/db-2.md");
    const flow = text.replace(/^---\nlastConfirmed: (\S+)\nprovenance: (\S+)\n/, "---\n{lastConfirmed: $1, provenance: $2}\n");
    expect(flow).not.toBe(text);
    await writeFile(path.join(root, "knowledge/db-2.md"), flow);
    expect((await kb.check()).diagnostics.map((d) => [d.file, d.line, d.rule, d.severity])).toEqual([["knowledge/db-2.md", 2, "frontmatter-not-editable", "error"]]);
    const result = await kb.decay();
    expect(result.archived.map((c) => c.id)).toEqual(["db-1"]);
    expect(result.warnings).toEqual([expect.stringMatching(/^"db-2" was not archived: cannot move "db-2": knowledge\/db-2\.md cannot be edited \(cannot set frontmatter key "archived": cannot tell which lines each key owns/)]);
    expect(await readdir(path.join(root, "knowledge/.pending")).catch(() => [])).toEqual([]);
    expect(await read(root, "knowledge/db-2.md")).toBe(flow);
    // Nothing is wedged: a record of an unrelated finding, and a retraction of db-2, both work.
    clock.tick();
    expect((await kb.recordFindings("r4", [{ agent: "a", text: "An unrelated finding about caching headers." }])).confirmations).toEqual([]);
    expect((await kb.retract("db-2")).kind).toBe("done");
  });

  it("an id with '..' is a check error, and an entry decay cannot archive for it never stops the others' archiving", async () => {
    const { kb, root } = await project({ ...databaseEntries(1), "knowledge/db-2..old.md": databaseEntries(2)["knowledge/db-2.md"]! }, { config: { ...LITERAL, decayAfterRuns: 2 } });
    expect((await kb.check()).diagnostics.map((d) => [d.file, d.rule])).toEqual([["knowledge/db-2..old.md", "filename-invalid"]]);
    // Injected twice before this rule (a ledger an older cairn wrote): both entries are past their limit.
    for (const run of ["r1", "r2"]) await kb.ledger.append([{ type: "injected", run, agent: "a", entries: ["db-1", "db-2..old"] }]);
    const result = await kb.decay();
    expect(result.archived.map((c) => c.id)).toEqual(["db-1"]);
    expect(result.warnings).toEqual([expect.stringMatching(/^"db-2\.\.old" was not archived: "db-2\.\.old" cannot name a pending change/)]);
    expect(await readdir(path.join(root, "knowledge"))).toContain("db-2..old.md");
  });

  it("a change a crash left pending on an entry that can no longer be edited is dropped with a warning, not retried by every command", async () => {
    const { kb, root } = await project(databaseEntries(2), { config: LITERAL });
    const planned = (await read(root, "knowledge/db-2.md")).replace(/^---\nlastConfirmed: (\S+)\nprovenance: (\S+)\n/, "---\n{lastConfirmed: $1, provenance: $2}\n");
    await writeFile(path.join(root, "knowledge/db-2.md"), planned);
    const { execFileSync } = await import("node:child_process");
    const dead = Number(execFileSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" }));
    const os = await import("node:os");
    const { mkdir } = await import("node:fs/promises");
    await mkdir(path.join(root, "knowledge/.pending"), { recursive: true });
    const steps = [{ kind: "move", from: "knowledge/db-2.md", to: "knowledge/archive/db-2.md", edits: [{ op: "set", key: "archived", value: "2026-03-01" }] }];
    const { cacheSeal } = await import("../../src/store/cache-seal.js");
    const seal = cacheSeal(path.join(root, "knowledge/.pending"));
    await writeFile(path.join(root, "knowledge/.pending/db-2.json"), JSON.stringify({ v: 1, key: "db-2", owner: { pid: dead, host: os.hostname() }, seal, created: "", steps }));
    const warnings: string[] = [];
    kb.onWarning = (message) => void warnings.push(message);
    await kb.repair();
    expect(warnings).toEqual([expect.stringMatching(/^an interrupted change of db-2 cannot be finished: Cannot edit .*db-2\.md: cannot set frontmatter key "archived"/)]);
    expect(await readdir(path.join(root, "knowledge/.pending"))).not.toContain("db-2.json");
    await kb.repair();
    expect(warnings).toHaveLength(1);
  });

  it("two files with one id (an id-duplicate error) are one entry to the ledger: archived once, never listed twice", async () => {
    const { kb, root, clock } = await project(databaseEntries(1), { config: { ...LITERAL, decayAfterRuns: 3 } });
    for (let run = 1; run <= 3; run++) await review(kb, clock, `r${run}`);
    // The twin comes after the injections: an id claimed twice is never injected (see the inject gate).
    await writeFile(path.join(root, "knowledge/db-twin.md"), (await read(root, "knowledge/db-1.md")).replace("lastConfirmed:", "id: db-1\nlastConfirmed:"));
    expect((await kb.decay()).archived.map((c) => c.id)).toEqual(["db-1"]);
    expect((await events(kb)).filter((e) => e.type === "archived").map((e) => e.type === "archived" && e.entry)).toEqual(["db-1"]);
  });

  it("archives at exactly decayAfterRuns, with `archived` and `archivedReason`, and never deletes", async () => {
    const { kb, root, clock } = await project(databaseEntries(1), { config: LITERAL });
    const original = await read(root, "knowledge/db-1.md");
    for (let run = 1; run <= 9; run++) {
      await review(kb, clock, `r${run}`, ["a", "b"]);
      expect((await kb.decay()).archived).toEqual([]);
    }
    expect(await counter(kb, "db-1")).toBe(9);
    await review(kb, clock, "r10", ["a", "b"]);

    const before = await snapshot(path.join(root, "knowledge"));
    const dry = await kb.decay({ dryRun: true });
    expect(dry.archived).toEqual([expect.objectContaining({ id: "db-1", unconfirmedRuns: 10, lastConfirmed: "2026-02-12" })]);
    expect(await snapshot(path.join(root, "knowledge"))).toEqual(before);

    const real = await kb.decay();
    expect(real.archived.map((c) => c.id)).toEqual(["db-1"]);
    expect(await readdir(path.join(root, "knowledge"))).not.toContain("db-1.md");
    const archived = await read(root, "knowledge/archive/db-1.md");
    // Moved whole: the two archive keys are added, every other line is as it was.
    const added = archived.split("\n").filter((line) => !original.split("\n").includes(line));
    expect(added).toEqual([`archived: ${clock.today()}`, expect.stringMatching(/^archivedReason: .*decayed: injected in 10 runs/)]);
    expect(archived.split("\n").filter((line) => !added.includes(line))).toEqual(original.split("\n"));
    expect((await events(kb)).filter((e) => e.type === "archived")).toEqual([expect.objectContaining({ entry: "db-1", reason: expect.stringContaining("decayed") })]);

    // Idempotent; and the archived entry is no longer injected or counted.
    expect((await kb.decay()).archived).toEqual([]);
    expect((await kb.inject({ run: "r11", agent: "a", keywords: ["database"] })).entries).toEqual([]);
    expect((await kb.status({ all: true })).entries).toEqual([expect.objectContaining({ id: "db-1", state: "archived", unconfirmedRuns: 0 })]);
  });

  it("honours a configured decayAfterRuns", async () => {
    const { kb, clock } = await project(databaseEntries(1), { config: { ...LITERAL, decayAfterRuns: 3 } });
    await review(kb, clock, "r1");
    await review(kb, clock, "r2");
    expect((await kb.decay()).archived).toEqual([]);
    await review(kb, clock, "r3");
    expect((await kb.decay()).archived.map((c) => c.id)).toEqual(["db-1"]);
  });

  it("planDecay is pure and skips entries a pending plan confirms", async () => {
    const { kb, clock } = await project(databaseEntries(1), { config: { ...LITERAL, decayAfterRuns: 2 } });
    await review(kb, clock, "r1");
    await review(kb, clock, "r2");
    const loaded = await kb.load();
    const views = await kb.ledger.project(loaded.entries.map((e) => ({ id: e.id, lastConfirmed: e.frontmatter.lastConfirmed as string })));
    const rule = (decayAfterRuns: number) => ({ decayAfterRuns, holdout: "off" as const });
    expect(planDecay(loaded.entries, views, rule(2)).map((c) => c.id)).toEqual(["db-1"]);
    expect(planDecay(loaded.entries, views, rule(2), { confirmed: new Set(["db-1"]) })).toEqual([]);
    expect(planDecay(loaded.entries, views, rule(3))).toEqual([]);
  });
});

describe("decay: resets", () => {
  it("`confirm` resets the counter with a one/two-line edit", async () => {
    const { kb, root, clock } = await project(databaseEntries(1), { config: LITERAL });
    for (let run = 1; run <= 8; run++) await review(kb, clock, `r${run}`);
    expect(await counter(kb, "db-1")).toBe(8);
    const before = await read(root, "knowledge/db-1.md");
    expect(await kb.confirm("db-1")).toMatchObject({ kind: "done", changed: true });
    expect(changedLines(before, await read(root, "knowledge/db-1.md"))).toEqual([`lastConfirmed: 2026-02-12 → lastConfirmed: ${clock.today()}`]);
    expect(await counter(kb, "db-1")).toBe(0);
    for (let run = 9; run <= 17; run++) await review(kb, clock, `r${run}`);
    expect((await kb.decay()).archived).toEqual([]);
    await review(kb, clock, "r18");
    expect((await kb.decay()).archived.map((c) => c.id)).toEqual(["db-1"]);
  });

  it("a human editing lastConfirmed to today resets the counter (no command needed)", async () => {
    const { kb, root, clock } = await project(databaseEntries(1), { config: LITERAL });
    for (let run = 1; run <= 9; run++) await review(kb, clock, `r${run}`);
    const file = path.join(root, "knowledge/db-1.md");
    await writeFile(file, (await read(root, "knowledge/db-1.md")).replace("lastConfirmed: 2026-02-12", `lastConfirmed: ${clock.today()}`));
    expect(await counter(kb, "db-1")).toBe(0);
    await review(kb, clock, "r10");
    expect((await kb.decay()).archived).toEqual([]);
  });

  it("an independent re-discovery resets the counter; a primed one does not", async () => {
    const { kb, clock } = await project(databaseEntries(1), { config: LITERAL });
    for (let run = 1; run <= 6; run++) await review(kb, clock, `r${run}`);
    await kb.recordFindings("r6", [{ agent: "a", text: "Database connections are not released on error paths." }]);
    expect(await counter(kb, "db-1")).toBe(6);
    await kb.recordFindings("r6", [{ agent: "b", text: "Database connections are not released on error paths." }]);
    expect(await counter(kb, "db-1")).toBe(0);
  });
});
