/**
 * review-anchored through the product: a knowledge base materialised under bench/.cache/ — the set's
 * anchored source files (from its files.jsonl, what materialize.mjs writes) at the repository root
 * and one entry file per item (title in the frontmatter, the item text as the finding, its anchors
 * written `path:start-end, symbol()` as the item cites them, many drifted since) — indexed by the
 * library itself (`kb.index()`): the anchored-code field, its resolution and the changed-code places
 * all come from src/, nothing from the bench. Without sources, the same entries' anchors resolve to
 * nothing: the product without anchored code.
 */
import { existsSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { parseEntry } from "../../src/entry/parse.js";
import { codeBatch, entryDocWithCode } from "../../src/indexing/entry-code.js";
import type { AnchorRef } from "../../src/indexing/document.js";
import { openKnowledgeBase, type KnowledgeBase } from "../../src/index.js";
import { ANCHORED_CACHE } from "./anchored-code.js";
import { BENCH_DATA_DIR, readJsonl, type BenchDoc, type Dataset } from "./dataset.js";
import type { ProductAnchoring } from "./sets.js";

/** A file name for an item id (`express:3dfe6c06d6:lib/express.core.js:start`). */
export const entrySlug = (id: string): string => id.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");

/** The entry file of a benchmark document, as a person would write it. */
export function entryMarkdown(doc: BenchDoc): string {
  const evidence = (doc.anchors ?? []).map((a) => `- ${a.path}:${a.start}-${a.end}${a.symbol ? `, ${a.symbol}()` : ""}`).join("\n");
  // One paragraph: the finding section is the first paragraph, and an item's own line breaks are not structure.
  const finding = doc.text.replace(/\s+/g, " ").trim() || doc.title;
  return ["---", `id: ${JSON.stringify(entrySlug(doc.id))}`, `title: ${JSON.stringify(doc.title)}`, "lastConfirmed: 2026-01-01", "provenance: independent", "---", finding, "", "Evidence:", evidence, "", "Verify: re-read the anchored function.", ""].join("\n");
}

export type ProductKb = { root: string; kb: KnowledgeBase; ids: Map<string, string> };

/**
 * Materialise `dataset` (review-anchored) as a knowledge base under `name` in the bench cache and index
 * it. `sources`: write the anchored source files (else the anchors resolve to nothing).
 */
export async function productKb(dataset: Dataset, name: string, options: { sources: boolean }): Promise<ProductKb> {
  const root = path.join(path.dirname(ANCHORED_CACHE), name);
  await rm(root, { recursive: true, force: true });
  await mkdir(path.join(root, "knowledge", "archive"), { recursive: true });
  await writeFile(path.join(root, "cairn.config.json"), JSON.stringify({ embedder: { provider: "none" } }));
  if (options.sources) {
    for (const record of await readJsonl(path.join(BENCH_DATA_DIR, "review-anchored", "files.jsonl"))) {
      const rel = String(record["path"]);
      const abs = path.resolve(root, rel);
      if (!abs.startsWith(root + path.sep)) throw new Error(`refusing unsafe path: ${rel}`);
      await mkdir(path.dirname(abs), { recursive: true });
      await writeFile(abs, String(record["content"]));
    }
  }
  const ids = new Map<string, string>();
  for (const doc of dataset.docs) {
    const slug = entrySlug(doc.id);
    ids.set(slug, doc.id);
    await writeFile(path.join(root, "knowledge", `${slug}.md`), entryMarkdown(doc));
  }
  const kb = await openKnowledgeBase({ root, embedder: null, refreshIntervalMs: 3_600_000 });
  await kb.index();
  return { root, kb, ids };
}

/**
 * What the product built for each review-anchored entry (a knowledge base with the source files,
 * indexed by the library): its anchored code and its anchors where they point now, for the pipeline
 * (field-weight sweep, floor study). Also returns the knowledge base.
 */
export async function productAnchoring(dataset: Dataset): Promise<ProductAnchoring & { kb: ProductKb }> {
  const kb = await productKb(dataset, "kb-anchored", { sources: true });
  const code = await productCode(kb.root, dataset.docs);
  const { index } = await kb.kb.searchIndex();
  const anchors = new Map<string, AnchorRef[]>(dataset.docs.map((d) => [d.id, index.anchorsOf(entrySlug(d.id))?.placed() ?? []]));
  return { code, anchors, kb };
}

/**
 * The anchored code the product builds for each document (src/anchors/code.ts through
 * entry-docs.ts, in a materialised tree), for the field-weight sweep on the in-memory pipeline.
 */
export async function productCode(root: string, docs: readonly BenchDoc[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (!existsSync(root)) return out;
  const batch = codeBatch(root);
  for (const doc of docs) {
    const file = path.join(root, "knowledge", `${entrySlug(doc.id)}.md`);
    const { entry } = parseEntry(await readFile(file), { file: path.relative(root, file), state: "active" });
    if (!entry) continue;
    const { doc: built } = await entryDocWithCode(batch, entry);
    out.set(doc.id, built.lexical.fields.anchoredCode ?? "");
  }
  return out;
}
