/** An entry's index document with its anchored code (src/anchors/code.ts) as the `anchoredCode` lexical field. */
import { anchoredCode, type CodeBatch } from "../anchors/code.js";
import type { Entry } from "../entry/types.js";
import { shortHash, type CodeRecord } from "./catalogue.js";
import { entryDocument, type IndexDoc } from "./document.js";
import { anchorsKey } from "./entry-docs.js";

export { codeBatch, type CodeBatch } from "../anchors/code.js";

/** `entry`'s index document (`doc` when already built: it gains the field), its anchored code read in `batch`, and what that code was built from. */
export async function entryDocWithCode(batch: CodeBatch, entry: Entry, doc: IndexDoc = entryDocument(entry)): Promise<{ doc: IndexDoc; code: CodeRecord }> {
  const code = await anchoredCode(batch, entry.evidence.anchors);
  if (code.text) doc.lexical.fields.anchoredCode = code.text;
  return { doc, code: { hash: shortHash(code.text, 16), anchors: anchorsKey(entry.evidence.anchors), sources: code.sources, places: code.places } };
}
