/**
 * Crash-safe, idempotent moves (issue 8): `kill -9` during `decay` left an entry in knowledge/ and
 * knowledge/archive/ with no `archived` event, and re-running decay did not repair it. Here every
 * state a killed archive/restore/supersede/retract can leave is built on disk, then the next
 * command's repair must finish it: one copy, in the right place, with exactly one event.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { editFrontmatter } from "../../src/entry/edit.js";
import { openKnowledgeBase, type KnowledgeBase } from "../../src/knowledge-base.js";
import { readLedger } from "../../src/ledger/read.js";
import { newEventId } from "../../src/ledger/id.js";
import { planArchive, planRestore } from "../../src/lifecycle/manual.js";
import { textHash, type ChangeStep } from "../../src/lifecycle/change.js";
import { cacheSeal } from "../../src/store/cache-seal.js";
import { killBlockedOnLedger } from "../helpers/blocked-append.js";
import { REPO } from "../helpers/cli.js";
import { entryText, SOURCE_FILES, testdir } from "../helpers/fixture.js";

const ARCHIVED = "lastConfirmed: 2026-02-12\nprovenance: independent\narchived: 2026-03-01\narchivedReason: decayed";

/** The pid of a process that has exited: an owner that is certainly dead. */
function deadPid(): number {
  return Number(execFileSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" }));
}

async function setup(files: Record<string, string> = {}): Promise<{ root: string; kb: KnowledgeBase; warnings: string[] }> {
  const root = await testdir({ ...SOURCE_FILES, "knowledge/ctx.md": entryText(), "knowledge/archive/old.md": entryText({ fm: ARCHIVED }), "knowledge/.ledger/.gitkeep": "", ...files });
  const warnings: string[] = [];
  const kb = await openKnowledgeBase({ root, embedder: null, onWarning: (w) => warnings.push(w) });
  return { root, kb, warnings };
}

/** Write the log a process that was killed would have left for `steps` (events stamped as applyChange stamps them). */
async function leaveLog(root: string, key: string, steps: ChangeStep[], owner: { pid: number; host: string } = { pid: deadPid(), host: os.hostname() }): Promise<ChangeStep[]> {
  const time = new Date().toISOString();
  const stamped = steps.map((s) => (s.kind === "events" ? { ...s, events: s.events.map((e) => ({ ...e, time, eventId: newEventId(Date.parse(time)) })) } : s));
  await mkdir(path.join(root, "knowledge/.pending"), { recursive: true });
  // The seal a log written in this directory carries (a log brought from elsewhere cannot know it).
  const seal = cacheSeal(path.join(root, "knowledge/.pending"));
  await writeFile(path.join(root, "knowledge/.pending", `${key}.json`), JSON.stringify({ v: 1, key, owner, seal, created: time, steps: stamped }));
  return stamped;
}

async function state(root: string) {
  const active = (await readdir(path.join(root, "knowledge"))).filter((n) => n.endsWith(".md")).sort();
  const archived = (await readdir(path.join(root, "knowledge/archive"))).filter((n) => n.endsWith(".md")).sort();
  const { events, warnings } = await readLedger(path.join(root, "knowledge/.ledger"));
  const pending = await readdir(path.join(root, "knowledge/.pending")).catch(() => [] as string[]);
  return { active, archived, events: events.map((e) => `${e.type}:${"entry" in e ? e.entry : ""}`), warnings, pending };
}

function archiveOf(kb: KnowledgeBase, id: string, today = "2026-03-05"): Promise<ChangeStep[]> {
  return kb.load().then((loaded) => planArchive(kb.layout, loaded.byId.get(id)!, "decayed: test", today).steps);
}

describe("a change interrupted at any step is finished by the next command", () => {
  it.each([
    ["logged, nothing done yet", async () => {}],
    ["archive copy written, source still there (both places)", async (root: string, steps: ChangeStep[]) => {
      const move = steps[0] as Extract<ChangeStep, { kind: "move" }>;
      const edited = editFrontmatter(await readFile(path.join(root, move.from), "utf8"), move.edits);
      await writeFile(path.join(root, move.to), edited.ok ? edited.text : "");
    }],
    ["moved, no event yet", async (root: string, steps: ChangeStep[]) => {
      const move = steps[0] as Extract<ChangeStep, { kind: "move" }>;
      const edited = editFrontmatter(await readFile(path.join(root, move.from), "utf8"), move.edits);
      await writeFile(path.join(root, move.to), edited.ok ? edited.text : "");
      await rm(path.join(root, move.from));
    }],
    ["moved and event written, log not yet removed", async (root: string, steps: ChangeStep[], kb: KnowledgeBase) => {
      const move = steps[0] as Extract<ChangeStep, { kind: "move" }>;
      const edited = editFrontmatter(await readFile(path.join(root, move.from), "utf8"), move.edits);
      await writeFile(path.join(root, move.to), edited.ok ? edited.text : "");
      await rm(path.join(root, move.from));
      await kb.ledger.append((steps[1] as Extract<ChangeStep, { kind: "events" }>).events);
    }],
  ] as const)("archive killed when %s", async (_name, crash) => {
    const { root, kb, warnings } = await setup();
    const steps = await leaveLog(root, "ctx", await archiveOf(kb, "ctx"));
    await crash(root, steps, kb);
    // A stale lock of the killed process is left as well.
    await writeFile(path.join(root, "knowledge/.pending/ctx.lock"), JSON.stringify({ pid: deadPid(), host: os.hostname(), token: "t", time: "", command: "cairn decay" }));
    expect((await kb.confirm("ctx")).kind).toBe("refused"); // the next command: repair runs first, then ctx is archived
    const after = await state(root);
    expect(after).toEqual({ active: [], archived: ["ctx.md", "old.md"], events: ["archived:ctx"], warnings: [], pending: [] });
    expect(await readFile(path.join(root, "knowledge/archive/ctx.md"), "utf8")).toContain("archivedReason: \"decayed: test\"");
    expect(warnings.join("\n")).toMatch(/finished the change of ctx .*process \d+ was killed/);
    await kb.repair(); // idempotent: nothing more happens
    expect(await state(root)).toEqual(after);
  });

  it("a real archive blocked on the ledger and killed is completed with exactly one event", async () => {
    const { root } = await setup({ "cairn.config.json": JSON.stringify({ embedder: { provider: "none" } }) });
    // Killed once the entry has moved (written to archive/, then deleted from knowledge/): the append that follows blocks.
    const moved = () => existsSync(path.join(root, "knowledge/archive/ctx.md")) && !existsSync(path.join(root, "knowledge/ctx.md"));
    await killBlockedOnLedger(root, 'await kb.archive("ctx", "by hand");', moved, "the archive's move");
    expect(await state(root)).toMatchObject({ active: [], archived: ["ctx.md", "old.md"], events: [] }); // moved, event missing
    const kb = await openKnowledgeBase({ root, embedder: null });
    await kb.repair();
    expect(await state(root)).toEqual({ active: [], archived: ["ctx.md", "old.md"], events: ["archived:ctx"], warnings: [], pending: [] });
  });

  it("a change finished by another process's repair keeps its actor, origin and fingerprints", async () => {
    const { root } = await setup({ "cairn.config.json": JSON.stringify({ embedder: { provider: "none" } }) });
    const confirmed = async () => (await readFile(path.join(root, "knowledge/ctx.md"), "utf8")).includes(`lastConfirmed: ${new Date().toISOString().slice(0, 10)}`);
    await killBlockedOnLedger(root, 'await kb.actingAs("alice", () => kb.confirm("ctx"));', confirmed, "the confirmation's edit");
    // Repaired by someone else: before, the event was appended bare (history showed "?" for who, and no fingerprints).
    const kb = await openKnowledgeBase({ root, embedder: null, actor: "bob", origin: "main@elsewhere" });
    await kb.repair();
    const events = (await kb.ledger.read()).events.filter((e) => e.type === "manual-confirmed");
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ entry: "ctx", actor: "alice", fingerprints: expect.any(Array) });
    expect(events[0]!.origin).not.toBe("main@elsewhere");
  });

  it("new killed between its file and its created event: the next command appends the event", async () => {
    const { root } = await setup({ "cairn.config.json": JSON.stringify({ embedder: { provider: "none" } }) });
    const file = path.join(root, "knowledge/pool-leak.md");
    const input = { slug: "pool-leak", finding: "Connection pools leak a client on the error path; release it in finally.", evidence: ["src/auth.ts:1-2, handleRequest() — no release on error."], verify: ["grep for release( in src/auth.ts"] };
    await killBlockedOnLedger(root, `await kb.newEntry(${JSON.stringify(input)});`, () => existsSync(file), "the new entry's file");
    // Before: the file stayed without a created event, and a second `new` refused the id: history never had one.
    const kb = await openKnowledgeBase({ root, embedder: null });
    await kb.repair();
    const created = (await kb.ledger.read()).events.filter((e) => e.type === "created");
    expect(created.map((e) => e.type === "created" && e.entry)).toEqual(["pool-leak"]);
    expect(await kb.newEntry(input)).toMatchObject({ kind: "refused" });
    expect((await kb.ledger.read()).events.filter((e) => e.type === "created")).toHaveLength(1);
  });

  it("compound killed between the entry it creates and its compounded event: the next command appends the event", async () => {
    const { root } = await setup({ "cairn.config.json": JSON.stringify({ embedder: { provider: "none" } }), "src/export.ts": "export async function exportAll() {\n  write();\n}\n" });
    const candidate = { text: "Export jobs drop write errors because the write promise is never awaited.", agents: ["correctness", "reliability"], evidence: ["src/export.ts:1-3, exportAll() — the write is not awaited"], verify: ["Await the writes."], durable: true };
    // Killed at its first ledger append (compound reads the ledger first, so the FIFO of killBlockedOnLedger would block it earlier).
    const script = `
      const { createRequire, syncBuiltinESMExports } = await import("node:module");
      const fsp = createRequire(import.meta.url)("node:fs/promises");
      const { constants } = await import("node:fs");
      const open = fsp.open;
      fsp.open = (file, flags, ...rest) => {
        if (String(file).includes("/.ledger/") && typeof flags === "number" && flags & constants.O_APPEND) process.kill(process.pid, "SIGKILL");
        return open(file, flags, ...rest);
      };
      syncBuiltinESMExports();
      const { openKnowledgeBase } = await import(${JSON.stringify(path.join(REPO, "dist/index.js"))});
      const kb = await openKnowledgeBase({ root: ${JSON.stringify(root)}, embedder: null });
      await kb.compound("r1", [${JSON.stringify(candidate)}]);`;
    const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
    expect(child.signal, child.stderr).toBe("SIGKILL");
    expect(readdirSync(path.join(root, "knowledge")).filter((n) => n.startsWith("export-jobs"))).toHaveLength(1);
    // Before: the entry stayed without its compounded event (the crash helper hit it at 12 of 61 crash points).
    const kb = await openKnowledgeBase({ root, embedder: null });
    await kb.repair();
    const compounded = (await kb.ledger.read()).events.filter((e) => e.type === "compounded");
    expect(compounded).toEqual([expect.objectContaining({ run: "r1", agents: ["correctness", "reliability"] })]);
    const retry = await kb.compound("r1", [candidate]);
    expect(retry.created).toEqual([]);
    expect((await kb.ledger.read()).events.filter((e) => e.type === "compounded")).toHaveLength(1);
  });

  it("restore, supersede and retract logs are finished too", async () => {
    const { root, kb } = await setup({ "knowledge/new.md": entryText({ finding: "A newer finding about retries and their backoff." }) });
    const loaded = await kb.load();
    await leaveLog(root, "old", planRestore(kb.layout, loaded.byId.get("old")!, "by hand", "2026-03-05").steps);
    await leaveLog(root, "ctx", [
      { kind: "edit", path: "knowledge/new.md", edits: [{ op: "set", key: "supersedes", value: ["ctx"] }] },
      { kind: "edit", path: "knowledge/ctx.md", edits: [{ op: "set", key: "status", value: "superseded" }, { op: "set", key: "supersededBy", value: "new" }] },
      { kind: "events", events: [{ type: "superseded", entry: "ctx", by: "new" }] },
      ...(await archiveOf(kb, "ctx")),
    ]);
    const report = await kb.repair();
    expect(report.completed.sort()).toEqual(["ctx", "old"]);
    const after = await state(root);
    expect(after.active).toEqual(["new.md", "old.md"]);
    expect(after.archived).toEqual(["ctx.md"]);
    expect(after.events.sort()).toEqual(["archived:ctx", "restored:old", "superseded:ctx"]);
    expect(await readFile(path.join(root, "knowledge/new.md"), "utf8")).toContain("supersedes: [ctx]");
    const ctx = await readFile(path.join(root, "knowledge/archive/ctx.md"), "utf8");
    expect(ctx).toContain("status: superseded");
    expect(ctx).toContain("supersededBy: new");
    expect(await readFile(path.join(root, "knowledge/old.md"), "utf8")).not.toContain("archived");

    await leaveLog(root, "new", [{ kind: "delete", path: "knowledge/new.md" }, { kind: "events", events: [{ type: "retracted", entry: "new" }] }]);
    await kb.repair();
    expect(await state(root)).toMatchObject({ active: ["old.md"], pending: [] });
    expect((await state(root)).events).toContain("retracted:new");
  });

  it.each([
    ["logged, nothing written", "before", ["anchors-fixed:ctx"]],
    ["the new text written, no event yet", "after", ["anchors-fixed:ctx"]],
    ["the entry edited by hand after the crash", "hand", []],
  ] as const)("a check --fix rewrite killed when %s", async (_name, left, events) => {
    const { root, kb, warnings } = await setup();
    const file = path.join(root, "knowledge/ctx.md");
    const before = await readFile(file, "utf8");
    const text = before.replace("Evidence:", "Evidence (fixed):");
    const hand = before.replace("Evidence:", "Evidence (by hand):");
    await leaveLog(root, "ctx", [
      { kind: "rewrite", path: "knowledge/ctx.md", before: textHash(before), text },
      { kind: "events", events: [{ type: "anchors-fixed", entry: "ctx", changes: [{ from: ":1-2", to: ":3-4" }] }] },
    ]);
    if (left !== "before") await writeFile(file, left === "after" ? text : hand);
    await kb.repair();
    expect(await state(root)).toMatchObject({ active: ["ctx.md"], events, pending: [] });
    expect(await readFile(file, "utf8")).toBe(left === "hand" ? hand : text);
    if (left === "hand") expect(warnings.join("\n")).toMatch(/an interrupted change of ctx cannot be finished: knowledge\/ctx.md was edited since the change was planned; it was left as it is/);
    await kb.repair();
    expect((await state(root)).events).toEqual(events);
  });

  it("a target that differs from the source is a conflict: both kept, the log dropped, a warning", async () => {
    const { root, kb, warnings } = await setup();
    await leaveLog(root, "ctx", await archiveOf(kb, "ctx"));
    await writeFile(path.join(root, "knowledge/archive/ctx.md"), entryText({ finding: "Someone else's entry with the same name." }));
    await kb.repair();
    expect(await state(root)).toMatchObject({ active: ["ctx.md"], archived: ["ctx.md", "old.md"], events: [], pending: [] });
    expect(warnings.join("\n")).toMatch(/cannot be finished: knowledge\/archive\/ctx.md already exists and differs from knowledge\/ctx.md; both were kept/);
  });

  it("logs from another host, unreadable logs and logs naming files outside the knowledge dir are never acted on", async () => {
    const { root, kb, warnings } = await setup({ "src/keep.ts": "export const x = 1;\n" });
    await leaveLog(root, "ctx", await archiveOf(kb, "ctx"), { pid: 1, host: "ci-runner-7" });
    await leaveLog(root, "evil", [{ kind: "delete", path: "src/keep.ts" }]);
    await leaveLog(root, "evil2", [{ kind: "rewrite", path: "src/keep.ts", before: textHash("export const x = 1;\n"), text: "pwned" }]);
    await writeFile(path.join(root, "knowledge/.pending/torn.json"), '{"v":1,"key":"torn","ste');
    await kb.repair();
    expect(await state(root)).toMatchObject({ active: ["ctx.md"], archived: ["old.md"], events: [] });
    expect(await readFile(path.join(root, "src/keep.ts"), "utf8")).toBe("export const x = 1;\n");
    const text = warnings.join("\n");
    expect(text).toContain("knowledge/.pending/ctx.json is a change begun on another host (ci-runner-7); it is not applied here");
    expect(text).toMatch(/refusing a change to src\/keep.ts: only entry files in knowledge\/ and its archive\/ can be changed/);
    expect(text).toContain("knowledge/.pending/torn.json is not a pending change cairn can read");
  });

  it("a log committed to git (a hostile pull request naming this host and a dead pid) is never acted on", async () => {
    const { root, kb, warnings } = await setup();
    const git = (...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@e", ...args], { cwd: root, stdio: "pipe" });
    git("init", "-q");
    git("add", "-A");
    git("commit", "-qm", "base");
    await leaveLog(root, "ctx", [{ kind: "delete", path: "knowledge/ctx.md" }, { kind: "events", events: [{ type: "retracted", entry: "ctx" }] }]);
    git("add", "-f", "knowledge/.pending/ctx.json");
    git("commit", "-qm", "an innocent-looking pull request");
    await kb.repair();
    expect(await state(root)).toMatchObject({ active: ["ctx.md"], events: [], pending: ["ctx.json"] });
    expect(warnings.join("\n")).toContain("knowledge/.pending/ctx.json is committed to git: a change log is local to the process that wrote it, so this one came in a commit and is not applied — remove it (git rm knowledge/.pending/ctx.json)");
    // A change to the entry goes on: its own log replaces the committed one, which is never applied.
    expect((await kb.confirm("ctx")).kind).toBe("done");
    expect(await state(root)).toMatchObject({ active: ["ctx.md"], events: ["manual-confirmed:ctx"], pending: [] });
  });

  it("a log that was not written in this directory (a tarball or copy naming this host, where git cannot tell) is never acted on", async () => {
    const { root, kb, warnings } = await setup();
    await leaveLog(root, "ctx", [{ kind: "delete", path: "knowledge/ctx.md" }, { kind: "events", events: [{ type: "retracted", entry: "ctx" }] }]);
    // The same log, as a checkout without .git (or a copied clone) brings it: its knowledge/.pending/ is another directory.
    const copy = await testdir();
    const { cp } = await import("node:fs/promises");
    await cp(root, copy, { recursive: true });
    const there = await openKnowledgeBase({ root: copy, embedder: null, onWarning: (w) => warnings.push(w) });
    await there.repair();
    expect(await state(copy)).toMatchObject({ active: ["ctx.md"], events: [], pending: ["ctx.json"] });
    expect(warnings.join("\n")).toContain("knowledge/.pending/ctx.json was not written in this directory (a commit, a tarball or a copy brought it, or an older cairn wrote it); it is not applied");
    // Where it was written, it is finished.
    await kb.repair();
    expect(await state(root)).toMatchObject({ active: [], events: ["retracted:ctx"], pending: [] });
  });

  it("archive, restore and supersede are idempotent: repeating one changes nothing and writes no second event", async () => {
    const { root, kb } = await setup({ "knowledge/new.md": entryText({ finding: "A newer finding about retries and their backoff." }) });
    const loaded = await kb.load();
    const ctx = loaded.byId.get("ctx")!;
    expect(await kb.archive("ctx", "by hand")).toMatchObject({ kind: "done", changed: true, path: "knowledge/archive/ctx.md" });
    // A second process that planned from the same (now stale) view: no error, no second event.
    const { archiveEntry } = await import("../../src/lifecycle/manual.js");
    expect(await archiveEntry(kb.layout, kb.append, ctx, "by hand", "2026-03-05")).toMatchObject({ kind: "done", changed: false });
    expect((await state(root)).events).toEqual(["archived:ctx"]);
    expect(await kb.supersede("old", "new")).toMatchObject({ kind: "done" });
    expect(await kb.supersede("old", "new")).toMatchObject({ kind: "done", changed: false });
    expect((await state(root)).events.sort()).toEqual(["archived:ctx", "superseded:old"]);
  });
});
