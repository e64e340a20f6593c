/** Lifecycle writers in several processes: one at a time, and no edit written over another. */
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { acquireIndexLock } from "../../src/indexing/lock.js";
import { lockEntry } from "../../src/store/pending.js";
import { databaseEntries, events, project } from "./setup.js";

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("lifecycle locks", () => {
  it("a manual change waits for the lifecycle lock: a retract never falls between a record's edits and its events", async () => {
    const { kb, root } = await project(databaseEntries(1));
    // Another process's `record` holds the lifecycle lock while it edits entries and appends their events.
    const release = await acquireIndexLock(path.join(root, ".cairn/lifecycle"), { wait: true });
    const retracting = kb.retract("db-1");
    await pause(300);
    expect(await readFile(path.join(root, "knowledge/db-1.md"), "utf8")).toContain("lastConfirmed");
    expect((await events(kb)).filter((e) => e.type === "retracted")).toEqual([]);
    await release();
    expect(await retracting).toMatchObject({ kind: "done", id: "db-1" });
    expect((await events(kb)).map((e) => e.type)).toContain("retracted");
  });

  it("set-status edits under the entry's lock: an edit made meanwhile by the lock's holder is kept", async () => {
    const { kb, root } = await project(databaseEntries(1));
    const file = path.join(root, "knowledge/db-1.md");
    const release = await lockEntry(kb.layout, "db-1");
    const setting = kb.setStatus("db-1", "disputed");
    await pause(300);
    expect(await readFile(file, "utf8")).not.toContain("status: disputed");
    // The holder (a record confirming the entry) writes its edit, then lets go.
    await writeFile(file, (await readFile(file, "utf8")).replace("lastConfirmed: 2026-02-12", "lastConfirmed: 2026-03-01"));
    await release();
    expect(await setting).toMatchObject({ kind: "done", changed: true });
    const after = await readFile(file, "utf8");
    expect(after).toContain("status: disputed");
    expect(after).toContain("lastConfirmed: 2026-03-01");
    expect((await events(kb)).filter((e) => e.type === "status-set")).toHaveLength(1);
  });
});
