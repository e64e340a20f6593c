/**
 * The fast version of bench/crash.ts: real `cairn` processes killed with SIGKILL while a change is
 * half-done (right after its log appears, plus a few ms), then the next command must leave the
 * knowledge base consistent (see test/helpers/crash.ts for the invariants).
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SCENARIOS, servedTrial, trial, writeTemplate, type Trial } from "../helpers/crash.js";

let work = "";
let template = "";
beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), "cairn-crash-test-"));
  template = path.join(work, "template");
  await writeTemplate(template);
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe("kill -9 in the middle of a change", () => {
  it("decay, restore, supersede and retract killed mid-change: the next command finishes the change", async () => {
    const trials: Trial[] = [];
    for (const [name, delay] of [["decay (archive)", 3], ["restore", 0], ["supersede", 2], ["retract", 0]] as const) {
      trials.push(await trial(template, work, SCENARIOS.find((s) => s.name === name)!, { afterLogMs: delay }));
    }
    expect(trials.map((t) => [t.scenario, t.problems])).toEqual(trials.map((t) => [t.scenario, []]));
    // The kill follows the log by a poll of 1 ms; on a loaded machine a short change may finish first,
    // so only ask that the repair path was really exercised (bench/crash.ts counts it over hundreds of trials).
    expect(trials.filter((t) => t.repaired).length).toBeGreaterThanOrEqual(1);
  });

  it("a watcher killed while it runs a record or a retract for another process: the client says so and does not run it again, and the next command finishes the change", async () => {
    const trials: Trial[] = [];
    for (const [name, delay] of [["record", 0], ["retract", 0]] as const) {
      const t = await servedTrial(template, work, SCENARIOS.find((s) => s.name === name)!, { afterLogMs: delay });
      expect({ name, served: t.served, killed: t.killed, problems: t.problems }).toEqual({ name, served: true, killed: true, problems: [] });
      // Killed before it answered: the client reports it (never a second run here); had the change finished first, it exited 0.
      if (t.client.code !== 0) expect(t.client.stderr).toMatch(/stopped while it ran the command, which may or may not have taken effect/);
      expect(t.client.stderr).not.toMatch(/\n\s+at /);
      trials.push(t);
    }
    // As above: on a loaded machine a change may finish before the kill; the repair path must still have run once.
    expect(trials.filter((t) => t.repaired).length).toBeGreaterThanOrEqual(1);
  });
});
