/**
 * Which process owns a lock or a pending change, and whether it is still running. A record of
 * pid + hostname + the process's start time + its PID namespace is what tells a live holder from a dead one on the
 * same host (the start time catches a pid reused by a later process; the namespace, a process in a container). Holders on another host (a shared
 * file system) cannot be checked: callers fall back to an age bound for them.
 */
import { readFileSync, readlinkSync } from "node:fs";
import os from "node:os";

export type Owner = {
  /** Process id. */
  pid: number;
  /** `os.hostname()` of the process. */
  host: string;
  /** Start time of the process as the kernel reports it (Linux: clock ticks since boot); absent where unknown. */
  start?: string;
  /**
   * The process's PID namespace (Linux: `pid:[4026531836]`); absent where unknown. A process in a container or sandbox
   * sharing the host name and the repository has pids of its own (often 1): checked from another namespace, its pid
   * names some other process, which made a live holder look dead and its lock be broken.
   */
  ns?: string;
};

export type Liveness = "alive" | "dead" | "unknown";

/** State and start time of process `pid` from /proc (Linux); undefined elsewhere or when it has exited. */
function procStat(pid: number): { state: string; start: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // `pid (comm) state ppid …`: comm may contain spaces and parentheses, so split after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const [state, start] = [fields[0], fields[19]]; // fields 3 and 22: state, starttime
    return state && start ? { state, start } : undefined;
  } catch {
    return undefined;
  }
}

/** The start time of process `pid` (Linux: clock ticks since boot); undefined elsewhere or when it has exited. */
export function processStart(pid: number): string | undefined {
  return procStat(pid)?.start;
}

let self: Owner | undefined;

/** This process's PID namespace (Linux); undefined elsewhere. */
function pidNamespace(): string | undefined {
  try {
    return readlinkSync("/proc/self/ns/pid");
  } catch {
    return undefined;
  }
}

/** This process as an owner record. */
export function currentOwner(): Owner {
  if (!self) {
    const start = processStart(process.pid);
    const ns = pidNamespace();
    self = { pid: process.pid, host: os.hostname(), ...(start ? { start } : {}), ...(ns ? { ns } : {}) };
  }
  return self;
}

/** Whether `owner` is still running: "unknown" for another host (or an unreadable record). */
export function liveness(owner: Partial<Owner> | undefined): Liveness {
  if (!owner || typeof owner.pid !== "number" || !Number.isInteger(owner.pid) || owner.pid <= 0 || typeof owner.host !== "string") return "unknown";
  if (owner.host !== os.hostname()) return "unknown";
  // Another PID namespace on this host: its pid means nothing here (callers fall back to an age bound, as for another host).
  if (typeof owner.ns === "string" && currentOwner().ns !== undefined && owner.ns !== currentOwner().ns) return "unknown";
  if (owner.pid === process.pid) return owner.start === undefined || owner.start === currentOwner().start ? "alive" : "dead";
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return "dead";
  }
  const stat = procStat(owner.pid);
  if (stat?.state === "Z") return "dead"; // killed, not yet reaped by its parent
  if (owner.start !== undefined && stat !== undefined && stat.start !== owner.start) return "dead"; // the pid now belongs to another process
  return "alive";
}

/** True when `pid` (on this host) is not running: for temp files that carry only a pid. */
export function pidIsDead(pid: number): boolean {
  return liveness({ pid, host: os.hostname() }) === "dead";
}
