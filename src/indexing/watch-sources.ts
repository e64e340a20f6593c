/**
 * The anchored source files of a watched index (the files entries' anchored code was read from):
 * chokidar on their directories, one level deep, passing only those files. Watching the directory,
 * not only the file, sees editors' atomic saves, deletions and a file created where an anchor waits
 * for it; a directory that does not exist yet is waited for from its nearest existing ancestor.
 * Nothing else of the repository is watched.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import type { FSWatcher } from "chokidar";
import { findEscapeSync } from "../store/contain.js";

/** The longest a first sync waits for chokidar to watch the anchored sources (at 100k entries it reads ~1,400 directories). */
const READY_WAIT_MS = 30_000;

export type SourceWatcher = {
  /**
   * Watch exactly these repo-relative files (called after every refresh with the index's anchored sources). The first
   * call resolves once chokidar watches them (its `ready`): a watcher that says it is ready must not miss an edit made
   * right after; later additions are watched as chokidar gets to them (each refresh also stats every anchored file).
   */
  sync(files: readonly string[]): Promise<void>;
  close(): Promise<void>;
};

/** A watcher reporting every change to one of the synced files through `onChange`; chokidar is loaded on first use. */
export async function watchSources(root: string, onChange: () => void, onError: (message: string) => void): Promise<SourceWatcher> {
  const { watch } = await import("chokidar");
  const absRoot = path.resolve(root);
  /** Files and the directories leading to them that chokidar may report (everything else under a watched directory is ignored). */
  const allowed = new Set<string>();
  /** Directories handed to chokidar. */
  const watched = new Set<string>();
  let wanted = "";
  let watcher: FSWatcher | undefined;
  /** After close(), a sync (the watcher's final refresh) must not start watching again: chokidar's handles would keep the process alive. */
  let closed = false;

  const start = (dirs: string[]): { watcher: FSWatcher; ready: Promise<void> } => {
    const w = watch(dirs, { ignoreInitial: true, depth: 0, followSymlinks: false, ignored: (p: string) => !allowed.has(path.resolve(p)) });
    for (const event of ["add", "change", "unlink", "addDir", "unlinkDir"] as const) w.on(event, onChange);
    w.on("error", (error) => onError((error as Error).message));
    // chokidar reports `ready` once it has read every directory it was given; never wait for it without bound.
    const ready = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, READY_WAIT_MS);
      timer.unref();
      w.once("ready", () => {
        clearTimeout(timer);
        resolve();
      });
    });
    return { watcher: w, ready };
  };

  return {
    async sync(files) {
      if (closed) return;
      const key = files.join("\n");
      if (key === wanted) return;
      wanted = key;
      allowed.clear();
      const dirs = new Set<string>();
      for (const rel of files) {
        // Never watch through a link that leaves the repository.
        if (findEscapeSync(absRoot, path.dirname(rel))) continue;
        let dir = path.join(absRoot, path.dirname(rel));
        allowed.add(path.join(absRoot, rel));
        while (dir !== absRoot && !existsSync(dir)) {
          allowed.add(dir);
          dir = path.dirname(dir);
        }
        allowed.add(dir);
        dirs.add(dir);
      }
      const add = [...dirs].filter((d) => !watched.has(d));
      const drop = [...watched].filter((d) => !dirs.has(d));
      for (const d of add) watched.add(d);
      for (const d of drop) watched.delete(d);
      let started: Promise<void> | undefined;
      if (!watcher && add.length) ({ watcher, ready: started } = start(add));
      else if (add.length) watcher!.add(add);
      if (drop.length) watcher?.unwatch(drop);
      // Files of already watched directories that became wanted: watch them now, not at the directory's next event.
      if (watcher) for (const rel of files) if (!add.includes(path.dirname(path.join(absRoot, rel)))) watcher.add(path.join(absRoot, rel));
      await started;
    },
    async close() {
      closed = true;
      await watcher?.close();
    },
  };
}
