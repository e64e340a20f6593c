/**
 * A cheap re-check of what the open entries depend on, for clients that do not send file-watch
 * events: the files their anchors name, the knowledge directories (an entry added or removed),
 * the ledger (fingerprints of confirmations) and cairn.config.json — a handful of lstat calls.
 */
import { lstat, readdir } from "node:fs/promises";
import path from "node:path";
import { CONFIG_FILE } from "../config.js";
import { isInside } from "../store/files.js";
import type { OpenEntry, Workspace } from "./workspace.js";

/** Anchored paths stamped at most per check. */
const MAX_PATHS = 256;

export type Change = { sources: boolean; entries: boolean; config: boolean };

export class Freshness {
  /** The stamp of every path looked at last time. */
  #last = new Map<string, string>();

  /** What changed since the previous call, among the paths looked at both times (a path just added to an entry is no change). */
  async check(ws: Workspace, open: readonly OpenEntry[]): Promise<Change> {
    const { layout } = ws;
    const watched = new Map<string, keyof Change>();
    for (const entry of open) {
      for (const anchor of ws.parse(entry).entry?.evidence.anchors ?? []) {
        if (watched.size >= MAX_PATHS) break;
        if (anchor.path === undefined || anchor.glob || anchor.repo !== undefined) continue;
        const abs = path.resolve(layout.root, anchor.path);
        if (isInside(layout.root, abs)) watched.set(abs, "sources");
      }
    }
    for (const name of await readdir(layout.ledger).catch(() => [] as string[])) watched.set(path.join(layout.ledger, name), "sources");
    watched.set(layout.ledger, "sources");
    watched.set(layout.knowledge, "entries");
    watched.set(layout.archive, "entries");
    watched.set(path.join(layout.root, CONFIG_FILE), "config");
    const change: Change = { sources: false, entries: false, config: false };
    const now = new Map<string, string>();
    for (const [p, kind] of watched) {
      const info = await lstat(p).catch(() => undefined);
      const stamp = info ? `${info.mtimeMs}:${info.size}` : "-";
      now.set(p, stamp);
      const before = this.#last.get(p);
      if (before !== undefined && before !== stamp) change[kind] = true;
    }
    this.#last = now;
    return change;
  }
}
