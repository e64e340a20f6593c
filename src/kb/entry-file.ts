/** One entry read from its own file now, without the catalogue: by its file name, or by a catalogue record's path. */
import { existsSync } from "node:fs";
import path from "node:path";
import { isEntryId } from "../entry/id.js";
import type { Entry, EntrySummary } from "../entry/types.js";
import { entryFileFor, type ReadResult } from "../store/files.js";
import type { KbContext } from "./context.js";

/** The entry of a catalogue record, parsed from its file now; undefined when the file is gone or no longer holds that id. */
export async function entryOf(ctx: Pick<KbContext, "layout" | "today">, record: EntrySummary): Promise<Entry | undefined> {
  const file = entryFileFor(ctx.layout, record.path);
  if (!file) return undefined;
  const { readEntryFile } = await import("../store/files.js");
  const { entry } = await readEntryFile(ctx.layout, file, ctx.today());
  return entry && entry.id === record.id ? entry : undefined;
}

/**
 * The entry in `<id>.md` (knowledge/ or the archive) when exactly one of the two exists and holds that id: found
 * without the catalogue. Undefined otherwise (an `id:` key, a duplicate, no such file): the catalogue decides.
 */
export async function byFileName(ctx: Pick<KbContext, "layout" | "today">, id: string): Promise<(ReadResult & { entry: Entry }) | undefined> {
  if (!isEntryId(id)) return undefined;
  const names = [path.join(ctx.layout.knowledge, `${id}.md`), path.join(ctx.layout.archive, `${id}.md`)].filter((f) => existsSync(f));
  const file = names.length === 1 ? entryFileFor(ctx.layout, names[0]!) : undefined;
  if (!file) return undefined;
  const { readEntryFile } = await import("../store/files.js");
  const read = await readEntryFile(ctx.layout, file, ctx.today());
  return read.entry?.id === id ? { ...read, entry: read.entry } : undefined;
}
