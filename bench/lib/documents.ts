/** What the index would see of a generated knowledge base: one IndexDoc per entry file (or per file in `only`, repo-relative paths), in refresh order. */
import { DEFAULT_CONFIG } from "../../src/config.js";
import { entryDocument, type IndexDoc } from "../../src/indexing/document.js";
import { listEntryFiles, readEntryFile } from "../../src/store/files.js";
import { layoutFor } from "../../src/store/layout.js";

export async function indexDocuments(root: string, only?: ReadonlySet<string>): Promise<IndexDoc[]> {
  const layout = layoutFor(root, DEFAULT_CONFIG);
  const docs: IndexDoc[] = [];
  for (const file of await listEntryFiles(layout)) {
    if (only && !only.has(file.rel)) continue;
    const result = await readEntryFile(layout, file);
    if (!result.entry) throw new Error(`generated entry ${file.rel} did not parse: ${result.diagnostics[0]?.message}`);
    docs.push(entryDocument(result.entry));
  }
  return docs;
}

/** Split `items` into consecutive batches of `size`. */
export function batches<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
