/** The options of the search index (search-index.ts): how it is opened and refreshed. */
import type { EntryFile } from "../store/files.js";
import type { IndexProgress } from "../types/indexing.js";

/** How `SearchIndex.refresh` reads the entry files. */
export type RefreshOptions = {
  /** Told how embedding goes (a progress bar). Default none. */
  onProgress?: IndexProgress;
  /** The entry files (default: listed from the knowledge dir). */
  files?: EntryFile[];
  /** Embed at most this many texts in this refresh (searches); the rest wait for `cairn index`. Default: all. */
  embedLimit?: number;
  /** Read and hash every entry file, not only those whose size or mtime changed (check). Default false. */
  verifyContent?: boolean;
};

/** How `SearchIndex.open` reads the saved index. */
export type OpenIndexOptions = {
  /** Start empty (`cairn index --rebuild`). Default false. */
  rebuild?: boolean;
  /** Configured other repositories (config `repos`): their anchors contribute no anchored code. Default none. */
  repos?: Record<string, string>;
  /** @internal Test seam: runs after the manifest is read and before the files it names (another process saving meanwhile). */
  afterManifest?: () => Promise<void>;
};
