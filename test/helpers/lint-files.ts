/** The lint cache's shard files (`.cairn/lint/NN.json`) as tests inspect and forge them. */
import { readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";

export type StoredShard = { clean: string[]; content: Record<string, unknown>; paths: string[]; [k: string]: unknown };

/** Every shard file of `root`'s cache, by path, parsed. */
export async function lintShards(root: string): Promise<Map<string, StoredShard>> {
  const dir = path.join(root, ".cairn", "lint");
  const shards = new Map<string, StoredShard>();
  for (const name of (await readdir(dir)).filter((n) => /^\d\d\.json$/.test(n)).sort()) {
    shards.set(path.join(dir, name), JSON.parse(await readFile(path.join(dir, name), "utf8")) as StoredShard);
  }
  return shards;
}

/** The shards' lists joined: every clean hash, every hash with problems, every anchored path. */
export async function lintFiles(root: string): Promise<{ clean: string[]; content: Record<string, unknown>; paths: string[] }> {
  const all = { clean: [] as string[], content: {} as Record<string, unknown>, paths: [] as string[] };
  for (const shard of (await lintShards(root)).values()) {
    all.clean.push(...shard.clean);
    Object.assign(all.content, shard.content);
    all.paths.push(...shard.paths);
  }
  return { clean: all.clean.sort(), content: all.content, paths: all.paths.sort() };
}

/** Rewrite every shard through `edit`. */
export async function forgeLintShards(root: string, edit: (shard: StoredShard) => void): Promise<void> {
  for (const [file, shard] of await lintShards(root)) {
    edit(shard);
    await writeFile(file, JSON.stringify(shard));
  }
}
