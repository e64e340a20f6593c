import { existsSync } from "node:fs";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CairnError } from "../../src/errors.js";
import { moveFileNoClobber, writeFileAtomic } from "../../src/store/atomic.js";

let dir: string;
const cleanup: string[] = [];

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "cairn-atomic-"));
  cleanup.push(dir);
});

afterEach(async () => {
  for (const d of cleanup.splice(0)) await fs.rm(d, { recursive: true, force: true });
});

const modeOf = async (file: string): Promise<number> => (await fs.stat(file)).mode & 0o777;

async function rejection(promise: Promise<unknown>): Promise<CairnError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CairnError);
  return error as CairnError;
}

describe("writeFileAtomic", () => {
  it("writes strings and bytes, leaving no temp file behind", async () => {
    const file = path.join(dir, "entry.md");
    await writeFileAtomic(file, "---\nid: a\n---\nbody\n");
    expect(await fs.readFile(file, "utf8")).toBe("---\nid: a\n---\nbody\n");
    await writeFileAtomic(file, new Uint8Array([0xef, 0xbb, 0xbf, 0x68, 0x69]));
    expect(await fs.readFile(file)).toEqual(Buffer.from([0xef, 0xbb, 0xbf, 0x68, 0x69]));
    expect(await fs.readdir(dir)).toEqual(["entry.md"]);
  });

  it("keeps the replaced file's mode, and applies an explicit mode exactly", async () => {
    const file = path.join(dir, "entry.md");
    await fs.writeFile(file, "old");
    await fs.chmod(file, 0o640);
    await writeFileAtomic(file, "new");
    expect(await modeOf(file)).toBe(0o640);
    await writeFileAtomic(file, "newer", { mode: 0o600 });
    expect(await modeOf(file)).toBe(0o600);
    expect(await fs.readFile(file, "utf8")).toBe("newer");
  });

  it("writes through a symlink to its target instead of replacing the link", async () => {
    const real = path.join(dir, "real.md");
    const link = path.join(dir, "link.md");
    await fs.writeFile(real, "old");
    await fs.symlink(real, link);
    await writeFileAtomic(link, "new");
    expect((await fs.lstat(link)).isSymbolicLink()).toBe(true);
    expect(await fs.readFile(real, "utf8")).toBe("new");
  });

  it("exclusive creates a new file but refuses an existing one, leaving it intact", async () => {
    const file = path.join(dir, "new.md");
    await writeFileAtomic(file, "first", { exclusive: true });
    expect(await fs.readFile(file, "utf8")).toBe("first");
    const error = await rejection(writeFileAtomic(file, "second", { exclusive: true }));
    expect(error.code).toBe("CONFLICT");
    expect(error.message).toContain("already exists");
    expect(await fs.readFile(file, "utf8")).toBe("first");
    expect(await fs.readdir(dir)).toEqual(["new.md"]);
  });

  it("lets exactly one of many concurrent exclusive writers win", async () => {
    const file = path.join(dir, "race.md");
    const results = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) => writeFileAtomic(file, `writer ${i}\n`.repeat(2000), { exclusive: true })),
    );
    const winners = results.flatMap((r, i) => (r.status === "fulfilled" ? [i] : []));
    expect(winners).toHaveLength(1);
    for (const r of results) if (r.status === "rejected") expect((r.reason as CairnError).code).toBe("CONFLICT");
    expect(await fs.readFile(file, "utf8")).toBe(`writer ${winners[0]}\n`.repeat(2000));
    expect(await fs.readdir(dir)).toEqual(["race.md"]);
  });

  it("never lets a reader see a partial file while concurrent writers replace it", async () => {
    const file = path.join(dir, "busy.md");
    const size = 256 * 1024;
    const version = (n: number): Buffer => Buffer.alloc(size, 65 + (n % 26));
    await writeFileAtomic(file, version(0));
    let writing = true;
    const writers = Promise.all(
      Array.from({ length: 4 }, async (_, w) => {
        for (let i = 1; i <= 15; i++) await writeFileAtomic(file, version(w * 15 + i));
      }),
    ).finally(() => {
      writing = false;
    });
    let reads = 0;
    const readers = Promise.all(
      Array.from({ length: 3 }, async () => {
        while (writing) {
          const data = await fs.readFile(file);
          expect(data.length).toBe(size);
          expect(data.every((byte) => byte === data[0])).toBe(true);
          reads++;
        }
      }),
    );
    await Promise.all([writers, readers]);
    expect(reads).toBeGreaterThan(0);
    expect(await fs.readdir(dir)).toEqual(["busy.md"]);
  });

  it("removes its temp file when the final rename fails", async () => {
    const target = path.join(dir, "is-a-dir");
    await fs.mkdir(path.join(target, "child"), { recursive: true });
    const error = await rejection(writeFileAtomic(target, "data"));
    expect(error.code).toBe("IO");
    expect(error.message).toContain(target);
    expect(error.cause).toBeDefined();
    expect(await fs.readdir(dir)).toEqual(["is-a-dir"]);
  });

  it("reports a missing directory as an IO error", async () => {
    const error = await rejection(writeFileAtomic(path.join(dir, "missing", "entry.md"), "x"));
    expect(error.code).toBe("IO");
    expect(error.message).toMatch(/does not exist/);
  });
});

describe("moveFileNoClobber", () => {
  it("moves a file into a new directory, keeping content and mode", async () => {
    const from = path.join(dir, "entry.md");
    const to = path.join(dir, "archive", "entry.md");
    await fs.writeFile(from, "body\r\n");
    await fs.chmod(from, 0o644);
    await moveFileNoClobber(from, to);
    expect(existsSync(from)).toBe(false);
    expect(await fs.readFile(to, "utf8")).toBe("body\r\n");
    expect(await modeOf(to)).toBe(0o644);
  });

  it("refuses an existing target and keeps both files intact", async () => {
    const from = path.join(dir, "a.md");
    const to = path.join(dir, "b.md");
    await fs.writeFile(from, "source");
    await fs.writeFile(to, "target");
    const error = await rejection(moveFileNoClobber(from, to));
    expect(error.code).toBe("CONFLICT");
    expect(error.message).toContain(to);
    expect(await fs.readFile(from, "utf8")).toBe("source");
    expect(await fs.readFile(to, "utf8")).toBe("target");
  });

  it("lets only one of two racing moves claim a target", async () => {
    const a = path.join(dir, "a.md");
    const b = path.join(dir, "b.md");
    const to = path.join(dir, "archive", "same.md");
    await fs.writeFile(a, "from a");
    await fs.writeFile(b, "from b");
    const results = await Promise.allSettled([moveFileNoClobber(a, to), moveFileNoClobber(b, to)]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const winner = results[0]!.status === "fulfilled" ? "a" : "b";
    const loser = winner === "a" ? b : a;
    expect(await fs.readFile(to, "utf8")).toBe(`from ${winner}`);
    expect(await fs.readFile(loser, "utf8")).toBe(`from ${winner === "a" ? "b" : "a"}`);
  });

  it("reports a missing source as an IO error", async () => {
    const error = await rejection(moveFileNoClobber(path.join(dir, "nope.md"), path.join(dir, "x.md")));
    expect(error.code).toBe("IO");
    expect(existsSync(path.join(dir, "x.md"))).toBe(false);
  });

  // /dev/shm is usually a tmpfs on another device: link() fails with EXDEV and the copy path runs.
  const otherDevice = existsSync("/dev/shm") ? "/dev/shm" : undefined;
  it.skipIf(otherDevice === undefined)("moves across devices by exclusive copy, still refusing an existing target", async () => {
    const shm = await fs.mkdtemp(path.join(otherDevice!, "cairn-atomic-"));
    cleanup.push(shm);
    if ((await fs.stat(shm)).dev === (await fs.stat(dir)).dev) return; // same device here: nothing to test
    const from = path.join(shm, "entry.md");
    await fs.writeFile(from, "cross-device");
    await fs.chmod(from, 0o600);
    const taken = path.join(dir, "taken.md");
    await fs.writeFile(taken, "keep me");
    expect((await rejection(moveFileNoClobber(from, taken))).code).toBe("CONFLICT");
    expect(await fs.readFile(taken, "utf8")).toBe("keep me");
    expect(await fs.readFile(from, "utf8")).toBe("cross-device");

    const to = path.join(dir, "archive", "entry.md");
    await moveFileNoClobber(from, to);
    expect(existsSync(from)).toBe(false);
    expect(await fs.readFile(to, "utf8")).toBe("cross-device");
    expect(await modeOf(to)).toBe(0o600);
    expect(await fs.readdir(path.join(dir, "archive"))).toEqual(["entry.md"]);
  });
});
