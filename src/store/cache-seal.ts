/**
 * The seal of a `.cairn/` directory: a hash of this host's name and the directory's real path, inode
 * and creation time. Derived files written under one seal are trusted only under the same seal, so a
 * `.cairn/` that arrives by a commit or a copy — whose catalogue or lint results could claim an entry
 * with a secret is clean — is rebuilt from the entry files instead of believed. Nobody can predict
 * the inode a checkout will get, so a committed cache can never carry a matching seal.
 */
import { createHash } from "node:crypto";
import { realpathSync, statSync } from "node:fs";
import os from "node:os";

/** The seal of `cacheDir`, or undefined when it does not exist yet. */
export function cacheSeal(cacheDir: string): string | undefined {
  try {
    const real = realpathSync(cacheDir);
    const info = statSync(real);
    return createHash("sha256")
      .update([os.hostname(), real, info.ino, info.birthtimeMs].join("\u0000"))
      .digest("hex")
      .slice(0, 16);
  } catch {
    return undefined;
  }
}
