/**
 * Near-duplicate entries: similarity above duplicateThreshold (from the search index: opt-in, it loads
 * the model), or an evidence anchor shared with another active entry (same file and symbol, or
 * overlapping lines) — the same test `compound` refuses duplicates with.
 */
import { anchorLabel, sharedAnchor } from "../entry/anchor-overlap.js";
import { diagnostic, type Diagnostic } from "../entry/diagnostic.js";
import type { SearchIndex } from "../indexing/search-index.js";
import { tokenize } from "../indexing/lexical/index.js";
import type { LoadedKnowledge } from "../store/load.js";
import type { CachedEmbed } from "../indexing/cached-embed.js";

/**
 * `embed` (an embedding model through the cache): candidates are pre-selected lexically — the four best
 * lexical matches of each entry — and only those pairs are embedded and compared by cosine; without a
 * model, by word overlap. Vectors the index holds (a ranking embedder) are used as they are.
 */
export async function findNearDuplicates(index: SearchIndex, loaded: LoadedKnowledge, threshold: number, embed?: CachedEmbed): Promise<Diagnostic[]> {
  await index.loadLexical();
  const out: Diagnostic[] = [];
  const active = loaded.entries.filter((e) => e.state === "active" && index.meta(e.id));
  const activeIds = new Set(active.map((e) => e.id));
  const texts = new Map(active.map((e) => [e.id, `${String(e.frontmatter.title ?? "")}\n${e.finding.text}`]));
  const reported = new Set<string>();
  const pairs: Array<{ entry: (typeof active)[number]; candidates: Array<{ id: string; similarity: number; how: string }> }> = [];
  for (const entry of active) {
    const candidates: Array<{ id: string; similarity: number; how: string }> = [];
    const vector = index.vectorOf(entry.id);
    if (vector) {
      for (const hit of index.vectorSearch(vector, 4, (id) => id !== entry.id && activeIds.has(id))) candidates.push({ id: hit.id, similarity: hit.similarity, how: "cosine" });
    } else {
      for (const hit of index.lexicalSearch(texts.get(entry.id) ?? "", 4, (id) => id !== entry.id && activeIds.has(id))) {
        candidates.push({ id: hit.id, similarity: jaccard(texts.get(entry.id) ?? "", texts.get(hit.id) ?? ""), how: "word overlap" });
      }
    }
    pairs.push({ entry, candidates });
  }
  if (embed) await byCosine(pairs, texts, embed);
  for (const { entry, candidates } of pairs) {
    for (const c of candidates) {
      if (c.similarity < threshold) continue;
      const pair = [entry.id, c.id].sort().join("\0");
      if (reported.has(pair)) continue;
      reported.add(pair);
      const [first, second] = [entry.id, c.id].sort() as [string, string];
      const later = loaded.byId.get(second)!;
      out.push(
        diagnostic(later.path, "near-duplicate", "warning", `"${second}" is a near-duplicate of "${first}" (${c.how} ${c.similarity.toFixed(2)} ≥ ${threshold}); merge them, or mark one with \`supersedes\``, {
          line: later.finding.line,
          column: 1,
        }),
      );
    }
  }
  for (const pair of anchorPairs(active)) {
    const key = [pair.first.id, pair.second.id].join("\0");
    if (reported.has(key)) continue;
    reported.add(key);
    out.push(
      diagnostic(pair.second.path, "near-duplicate", "warning", `"${pair.second.id}" shares evidence anchor ${pair.label} with "${pair.first.id}"; merge them, or mark one with \`supersedes\``, {
        line: pair.line,
        column: 1,
      }),
    );
  }
  return out;
}

/** Replace word-overlap similarities with the cosine of the two texts' embeddings (only the pre-selected pairs are embedded). */
async function byCosine(pairs: ReadonlyArray<{ entry: { id: string }; candidates: Array<{ id: string; similarity: number; how: string }> }>, texts: Map<string, string>, embed: CachedEmbed): Promise<void> {
  const ids = [...new Set(pairs.flatMap((p) => (p.candidates.some((c) => c.how === "word overlap") ? [p.entry.id, ...p.candidates.map((c) => c.id)] : [])))];
  if (!ids.length) return;
  const vectors = await embed.embed(ids.map((id) => texts.get(id) ?? ""));
  const byId = new Map(ids.map((id, i) => [id, vectors[i]!]));
  for (const p of pairs) {
    for (const c of p.candidates) {
      if (c.how !== "word overlap") continue;
      const a = byId.get(p.entry.id);
      const b = byId.get(c.id);
      if (!a || !b) continue;
      let dot = 0;
      for (let i = 0; i < a.length; i++) dot += a[i]! * b[i]!;
      c.similarity = dot;
      c.how = "cosine";
    }
  }
  await embed.flush();
}

/** Pairs of active entries (by id order) sharing an evidence anchor; entries are compared only within one file's bucket. */
function anchorPairs(active: LoadedKnowledge["entries"]): Array<{ first: LoadedKnowledge["entries"][number]; second: LoadedKnowledge["entries"][number]; label: string; line: number }> {
  const byPath = new Map<string, LoadedKnowledge["entries"]>();
  for (const entry of active) {
    for (const path of new Set(entry.evidence.anchors.filter((a) => a.path && !a.glob).map((a) => a.path!.replace(/^\.\//, "")))) {
      byPath.set(path, [...(byPath.get(path) ?? []), entry]);
    }
  }
  const out: ReturnType<typeof anchorPairs> = [];
  const seen = new Set<string>();
  for (const bucket of byPath.values()) {
    for (let i = 0; i < bucket.length; i++) {
      for (let j = i + 1; j < bucket.length; j++) {
        const [first, second] = [bucket[i]!, bucket[j]!].sort((a, b) => a.id.localeCompare(b.id)) as [LoadedKnowledge["entries"][number], LoadedKnowledge["entries"][number]];
        const key = `${first.id}\0${second.id}`;
        if (seen.has(key)) continue;
        const shared = sharedAnchor(second.evidence.anchors, first.evidence.anchors);
        if (!shared) continue;
        seen.add(key);
        out.push({ first, second, label: anchorLabel(shared.a), line: shared.a.line });
      }
    }
  }
  return out;
}

function jaccard(a: string, b: string): number {
  const sa = new Set(tokenize(a));
  const sb = new Set(tokenize(b));
  if (!sa.size || !sb.size) return 0;
  let inter = 0;
  for (const t of sa) if (sb.has(t)) inter++;
  return inter / (sa.size + sb.size - inter);
}
