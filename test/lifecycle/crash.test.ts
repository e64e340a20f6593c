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
  it("decay, restore, supersede, retract and check --fix killed mid-change: the next command finishes the change", async () => {
    const trials: Trial[] = [];
    for (const [name, delay] of [["decay (archive)", 3], ["restore", 0], ["supersede", 2], ["retract", 0], ["check --fix", 0]] as const) {
      trials.push(await trial(template, work, SCENARIOS.find((s) => s.name === name)!, { afterLogMs: delay }));
    }
    expect(trials.map((t) => [t.scenario, t.problems])).toEqual(trials.map((t) => [t.scenario, []]));
    // The kill follows the log by a poll of 1 ms; on a loaded machine a short change may finish first,
    // so only ask that the repair path was really exercised (bench/crash.ts counts it over hundreds of trials).
    expect(trials.filter((t) => t.repaired).length).toBeGreaterThanOrEqual(1);
  });

  it("a watcher killed while it runs a record or a retract for another process: the client says so and does not run it again, and the next command finishes the change", async () => {
    const trials: Trial[] = [];
    // On a loaded machine a change may finish before the kill: more trials (up to six) until one was killed mid-change.
    for (let attempt = 0; attempt < 6 && !trials.some((t) => t.killed && t.repaired); attempt++) {
      const name = attempt % 2 === 0 ? "record" : "retract";
      const t = await servedTrial(template, work, SCENARIOS.find((s) => s.name === name)!, { afterLogMs: 0 });
      expect({ name, served: t.served, problems: t.problems }).toEqual({ name, served: true, problems: [] });
      // Killed before it answered: the client reports it (never a second run here); had the change finished first, it exited 0.
      if (t.killed && t.client.code !== 0) expect({ code: t.client.code, stderr: t.client.stderr }).toEqual({ code: 3, stderr: expect.stringMatching(/stopped while it ran the command, which may or may not have taken effect/) });
      expect(t.client.stderr).not.toMatch(/\n\s+at /);
      trials.push(t);
    }
    expect(trials.some((t) => t.killed && t.repaired)).toBe(true);
  });
});
