/**
 * `cairn watch` on a large knowledge base: time until it says it is watching, its RSS (sampled from
 * /proc), the inotify watches it holds (counted from /proc/PID/fdinfo), and whether edits become
 * searchable: per edit, the time until the watcher reports the entry updated, then a cold `cairn search`
 * for the new text (the watcher holds the index lock; the search process reads the index it saved).
 */
import { spawn } from "node:child_process";
import { readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { coldRun } from "./cold.js";
import type { GeneratedEntry } from "./corpus.js";

export type WatchEdit = { id: string; reportedMs: number | null; searchMs: number; found: boolean; top: string | null };

export type WatchCheck = {
  outcome: "ok" | "failed" | "timeout";
  /** Milliseconds from spawn until the "watching" line. */
  readyMs: number | null;
  /** RSS when ready, and the highest seen (VmHWM) before it stopped, MB. */
  rssReadyMb: number | null;
  peakRssMb: number | null;
  /** inotify watches the process held once ready. */
  inotifyWatches: number | null;
  edits: WatchEdit[];
  stderr: string;
};

/** The system's inotify limits (Linux), e.g. { max_user_watches: 192536, ... }. */
export async function inotifyLimits(): Promise<Record<string, number>> {
  const dir = "/proc/sys/fs/inotify";
  const out: Record<string, number> = {};
  for (const name of await readdir(dir).catch(() => [] as string[])) out[name] = Number((await readFile(path.join(dir, name), "utf8")).trim());
  return out;
}

/** A process's RSS and peak RSS (VmHWM) from /proc, MB; undefined when it is gone. */
export async function procStatus(pid: number): Promise<{ rssMb: number; hwmMb: number } | undefined> {
  const text = await readFile(`/proc/${pid}/status`, "utf8").catch(() => undefined);
  if (!text) return undefined;
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+)`, "m").exec(text)?.[1] ?? Number.NaN);
  return { rssMb: kb("VmRSS") / 1024, hwmMb: kb("VmHWM") / 1024 };
}

/** inotify watches held by `pid`: one `inotify wd:` line per watch in the fdinfo of its inotify descriptors. */
async function inotifyWatchesOf(pid: number): Promise<number | null> {
  const fds = await readdir(`/proc/${pid}/fdinfo`).catch(() => undefined);
  if (!fds) return null;
  let watches = 0;
  for (const fd of fds) {
    const info = await readFile(`/proc/${pid}/fdinfo/${fd}`, "utf8").catch(() => "");
    for (const line of info.split("\n")) if (line.startsWith("inotify wd:")) watches++;
  }
  return watches;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function checkWatcher(cli: string, root: string, entries: readonly GeneratedEntry[], options: { edits: number; timeoutMs: number; log: (m: string) => void }): Promise<WatchCheck> {
  const child = spawn(process.execPath, [cli, "--root", root, "watch"], { stdio: ["ignore", "pipe", "pipe"] });
  const pid = child.pid!;
  const t0 = performance.now();
  let stdout = "";
  let stderr = "";
  const listeners = new Set<() => void>();
  child.stdout.on("data", (c: Buffer) => {
    stdout += c.toString("utf8");
    for (const l of listeners) l();
  });
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
  let exited = false;
  child.on("close", () => {
    exited = true;
    for (const l of listeners) l();
  });
  let hwm = 0;
  const sampler = setInterval(async () => {
    const s = await procStatus(pid);
    if (s) hwm = Math.max(hwm, s.hwmMb);
  }, 500);
  /** Resolve when `test(stdout)` holds; false on exit or timeout. */
  const until = (test: (out: string) => boolean, ms: number) =>
    new Promise<boolean>((resolve) => {
      const done = (value: boolean) => {
        listeners.delete(check);
        clearTimeout(timer);
        resolve(value);
      };
      const check = () => (test(stdout) ? done(true) : exited ? done(false) : undefined);
      const timer = setTimeout(() => done(false), ms);
      listeners.add(check);
      check();
    });
  const result: WatchCheck = { outcome: "ok", readyMs: null, rssReadyMb: null, peakRssMb: null, inotifyWatches: null, edits: [], stderr: "" };
  try {
    const ready = await until((out) => /watching /.test(out), options.timeoutMs);
    if (!ready) {
      result.outcome = exited ? "failed" : "timeout";
      return result;
    }
    result.readyMs = performance.now() - t0;
    result.rssReadyMb = (await procStatus(pid))?.rssMb ?? null;
    result.inotifyWatches = await inotifyWatchesOf(pid);
    options.log(`  watcher ready after ${(result.readyMs / 1000).toFixed(1)} s, ${result.rssReadyMb?.toFixed(0)} MB, ${result.inotifyWatches} inotify watches`);
    for (let k = 0; k < options.edits; k++) {
      const e = entries[(k * 7_001 + 4_242) % entries.length]!;
      const file = path.join(root, e.rel);
      const text = `The watched larkspur${k} exporter drops trailing rows when its buffer flushes (watch edit ${k}).`;
      const lines = (await readFile(file, "utf8")).split("\n");
      lines[lines.indexOf("---", 1) + 1] = text;
      const before = stdout.length;
      const t = performance.now();
      await writeFile(file, lines.join("\n"));
      const reported = await until((out) => out.slice(before).split("\n").some((l) => l.includes(e.id)), 60_000);
      const reportedMs = reported ? performance.now() - t : null;
      // Let the watcher's save finish before another process reads the index.
      await sleep(reported ? 1_000 : 0);
      // In its own process (not run by the watcher): the edit must be in the index the watcher saved.
      const search = await coldRun(process.execPath, [cli, "--root", root, "search", text, "--json", "--limit", "3"], { timeoutMs: options.timeoutMs, env: { CAIRN_USE_WATCH: "0" } });
      let top: string | null = null;
      try {
        top = (JSON.parse(search.stdout) as { results: Array<{ id: string }> }).results[0]?.id ?? null;
      } catch {
        top = null;
      }
      result.edits.push({ id: e.id, reportedMs, searchMs: search.ms, found: top === e.id, top });
      options.log(`  edit ${k + 1}: watcher ${reportedMs === null ? "never reported it (60 s)" : `reported it after ${(reportedMs / 1000).toFixed(1)} s`}; a cold search ${top === e.id ? "finds it" : `does not find it (top: ${top})`} (${(search.ms / 1000).toFixed(1)} s)`);
    }
    return result;
  } finally {
    clearInterval(sampler);
    const s = await procStatus(pid);
    if (s) hwm = Math.max(hwm, s.hwmMb);
    result.peakRssMb = hwm || null;
    if (!exited) {
      child.kill("SIGTERM");
      if (!(await until(() => false, 120_000)) && !exited) child.kill("SIGKILL");
    }
    result.stderr = stderr.slice(-2000);
  }
}
