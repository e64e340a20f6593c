/**
 * The entry directories of a watched index — knowledge/ and knowledge/archive/ — with one directory watch
 * each (node:fs `watch`, not chokidar). Entries live directly in these two directories, and a directory
 * watch reports every file created, written, renamed (an editor's atomic save) or deleted in it.
 *
 * Why not chokidar here: it watches every file it finds with a watch of its own. At 100,000 entries that
 * was 100,003 inotify watches (over Linux's default `fs.inotify.max_user_watches` on many systems),
 * 456 MB of memory and 8.8 s before the first event; two directory watches hold two and start at once.
 * chokidar still watches the anchored source files (watch-sources.ts), which lie anywhere in the repository.
 *
 * A change only schedules a refresh, which stats every entry file: whatever happened before a watch
 * started (an archive directory created and filled at once) is found by the refresh that follows it.
 */
import { existsSync, watch, type FSWatcher } from "node:fs";
import path from "node:path";
import { isEntryFileName } from "../store/files.js";

export type EntryDirWatcher = { close(): void };

export function watchEntryDirs(knowledge: string, archive: string, onChange: () => void, onError: (message: string) => void): EntryDirWatcher {
  const archiveName = path.basename(archive);
  let archiveWatcher: FSWatcher | undefined;
  let closed = false;

  const open = (dir: string, listener: (name: string | null) => void): FSWatcher | undefined => {
    try {
      const watcher = watch(dir, { persistent: true }, (_event, name) => listener(name));
      watcher.on("error", (error) => {
        if (dir === archive) dropArchive();
        else onError(`cannot watch ${dir}: ${error.message}`);
      });
      return watcher;
    } catch (error) {
      // The archive may be gone again by now (its next creation is seen in knowledge/); knowledge/ must be watchable.
      if (dir !== archive || existsSync(archive)) onError(`cannot watch ${dir}: ${(error as Error).message}`);
      return undefined;
    }
  };
  const dropArchive = (): void => {
    archiveWatcher?.close();
    archiveWatcher = undefined;
  };
  /** (Re)watch the archive as it is now: it may have been created, removed, or replaced by another directory. */
  const rewatchArchive = (): void => {
    dropArchive();
    if (!closed && existsSync(archive)) archiveWatcher = open(archive, (name) => (name === null || isEntryFileName(name) ? onChange() : undefined));
  };

  const knowledgeWatcher = open(knowledge, (name) => {
    if (name === archiveName) {
      rewatchArchive();
      onChange();
    } else if (name === null || isEntryFileName(name)) onChange();
  });
  rewatchArchive();

  return {
    close() {
      closed = true;
      knowledgeWatcher?.close();
      dropArchive();
    },
  };
}
