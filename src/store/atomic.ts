/**
 * Atomic file writes and no-clobber moves: readers see the old file or the new one, never a
 * partial write, and a move never replaces an existing file.
 *
 * Implemented on node:fs rather than the write-file-atomic package: `exclusive` needs the temp
 * file to be hard-linked into place (which fails with EEXIST instead of replacing), something the
 * package cannot do; it also does not fsync the directory after the rename.
 */
import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import * as fs from "node:fs/promises";
import * as path from "node:path";
import { CairnError, isCairnError } from "../errors.js";

export type WriteFileAtomicOptions = {
  /** Permission bits of the written file; default: the replaced file's mode, or 0o666 minus the umask for a new file. */
  mode?: number;
  /** Refuse to replace an existing file (throws CairnError "CONFLICT"); default false. */
  exclusive?: boolean;
  /**
   * Asked once the new bytes are written and synced, right before the rename: false leaves the file as it is (and
   * `writeFileAtomic` returns false). A read-modify-write checks here that nobody saved the file meanwhile.
   */
  onlyIf?: () => Promise<boolean>;
};

/** Error codes meaning "hard links are not available here", after which we fall back to copying. */
const NO_LINK = new Set(["EXDEV", "EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS", "EMLINK"]);

/**
 * Write `data` to `file` through a temp file in the same directory: write, fsync, then rename
 * (or hard-link when `exclusive`), then fsync the directory. The temp file is removed on failure.
 * Returns false only when `onlyIf` said no (nothing written).
 */
export async function writeFileAtomic(
  file: string,
  data: string | Uint8Array | Iterable<string | Uint8Array>,
  options: WriteFileAtomicOptions = {},
): Promise<boolean> {
  const exclusive = options.exclusive ?? false;
  const target = exclusive ? file : await fs.realpath(file).catch(() => file);
  const temp = tempPathFor(target);
  try {
    const mode = options.mode ?? (exclusive ? undefined : await existingMode(target));
    await writeAndSync(temp, data, mode);
    if (options.onlyIf && !(await options.onlyIf())) return false;
    if (exclusive) await linkExclusive(temp, target);
    else await fs.rename(temp, target);
    await syncDirectory(path.dirname(target));
    return true;
  } catch (error) {
    throw asCairnError(error, `could not write ${file}`, file);
  } finally {
    await fs.rm(temp, { force: true }).catch(() => undefined);
  }
}

/**
 * Move `from` to `to` without ever replacing an existing `to`, even under a race: hard-link then
 * unlink; across devices or where hard links are unsupported, an exclusive atomic copy then
 * unlink. Creates the target directory. Throws CairnError "CONFLICT" if `to` exists.
 */
export async function moveFileNoClobber(from: string, to: string): Promise<void> {
  try {
    await fs.mkdir(path.dirname(to), { recursive: true });
    try {
      await fs.link(from, to);
    } catch (error) {
      // EPERM also means "cannot hard-link a directory": only copy regular files.
      if (!NO_LINK.has(codeOf(error)) || !(await isFile(from))) throw error;
      const [data, stats] = await Promise.all([fs.readFile(from), fs.stat(from)]);
      await writeFileAtomic(to, data, { exclusive: true, mode: stats.mode & 0o7777 });
    }
    try {
      await fs.unlink(from);
    } catch (error) {
      await fs.rm(to, { force: true });
      throw error;
    }
    await syncDirectory(path.dirname(to));
    await syncDirectory(path.dirname(from));
  } catch (error) {
    throw asCairnError(error, `could not move ${from} to ${to}`, to);
  }
}

function tempPathFor(file: string): string {
  const suffix = `${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
  return path.join(path.dirname(file), `.${path.basename(file)}.${suffix}`);
}

async function existingMode(file: string): Promise<number | undefined> {
  try {
    return (await fs.stat(file)).mode & 0o7777;
  } catch {
    return undefined;
  }
}

async function isFile(file: string): Promise<boolean> {
  return (await fs.stat(file).catch(() => undefined))?.isFile() ?? false;
}

async function writeAndSync(temp: string, data: string | Uint8Array | Iterable<string | Uint8Array>, mode: number | undefined): Promise<void> {
  const handle = await fs.open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, mode ?? 0o666);
  try {
    if (typeof data === "string" || data instanceof Uint8Array) await handle.writeFile(data);
    // In pieces (a large file never held as one string); each writeFile continues at the handle's position.
    else for (const piece of data) await handle.writeFile(piece);
    // An explicit or inherited mode is applied exactly, not filtered through the umask.
    if (mode !== undefined) await handle.chmod(mode);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Put `temp` at `target` only if `target` does not exist. */
async function linkExclusive(temp: string, target: string): Promise<void> {
  try {
    await fs.link(temp, target);
    return;
  } catch (error) {
    if (!NO_LINK.has(codeOf(error))) throw error;
  }
  // No hard links on this file system: reserve the name with O_EXCL, then rename over it.
  // Readers may briefly see an empty file, but never a partial one, and nothing is replaced.
  const placeholder = await fs.open(target, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  await placeholder.close();
  await fs.rename(temp, target);
}

/** fsync a directory so a rename or link in it survives a crash; unsupported on some platforms, then skipped. */
async function syncDirectory(dir: string): Promise<void> {
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(dir, constants.O_RDONLY);
    await handle.sync();
  } catch {
    // Windows and some file systems cannot open or fsync a directory; the data itself is synced.
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : "";
}

function asCairnError(error: unknown, what: string, target?: string): CairnError {
  if (isCairnError(error)) return error;
  const code = codeOf(error);
  const message = error instanceof Error ? error.message : String(error);
  if (code === "EEXIST") {
    return new CairnError("CONFLICT", `${what}: ${target ?? "the target"} already exists; expected a free file name (nothing was overwritten)`, {
      cause: error,
    });
  }
  if (code === "ENOENT") {
    return new CairnError("IO", `${what}: a file or directory does not exist (${message}); expected an existing source and directory`, {
      cause: error,
    });
  }
  return new CairnError("IO", `${what}: ${message}`, { cause: error });
}
