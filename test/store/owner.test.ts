/** Whether a lock's or a change's owner is still running. */
import { execFileSync } from "node:child_process";
import { readlinkSync } from "node:fs";
import os from "node:os";
import { describe, expect, it } from "vitest";
import { currentOwner, liveness } from "../../src/store/owner.js";

/** The pid of a process that has exited. */
const deadPid = () => Number(execFileSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" }));

describe("owner liveness", () => {
  it("records this process's PID namespace, and cannot judge a holder in another one (its pid means nothing here)", () => {
    const ns = readlinkSync("/proc/self/ns/pid");
    expect(currentOwner().ns).toBe(ns);
    const pid = deadPid();
    expect(liveness({ pid, host: os.hostname(), ns })).toBe("dead");
    // Before: a process in a container sharing the host name (pid 1 there) was "dead" here, and its lock was broken
    // while it ran: two injects each gave one agent 5 entries.
    expect(liveness({ pid, host: os.hostname(), ns: "pid:[1]" })).toBe("unknown");
    expect(liveness({ pid: 1, host: os.hostname(), start: "1", ns: "pid:[1]" })).toBe("unknown");
    // Records written before the namespace was: as before.
    expect(liveness({ pid, host: os.hostname() })).toBe("dead");
  });
});
