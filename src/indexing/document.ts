/** What the index sees of an entry: lexical fields, the text to embed, and a content hash. */
import { createHash } from "node:crypto";
import type { Entry, EntryState } from "../entry/types.js";
import type { LexicalDoc } from "./lexical/index.js";

export type IndexMeta = {
  path: string;
  state: EntryState;
  /** sha256 of the embedded text: frontmatter-only edits (lastConfirmed…) do not change it. */
  contentHash: string;
  /** sha256 of the file bytes. */
  fileHash: string;
  status: string;
  agents: string[];
  tags: string[];
  /** Anchor paths or globs with their line ranges and symbols, for changed-file and changed-hunk evidence. */
  anchors: AnchorRef[];
};

/** What retrieval and matching need of an evidence anchor: where it points (a path or glob), which lines, which symbol. */
export type AnchorRef = { path: string; glob?: true; startLine?: number; endLine?: number; symbol?: string };

export type IndexDoc = { id: string; meta: IndexMeta; lexical: LexicalDoc; embedText: string; lexicalHash: string };

/** Character cap of embedded text: the finding and evidence carry the meaning; long tails add noise. */
const EMBED_CHARS = 2000;

export function entryDocument(entry: Entry): IndexDoc {
  const fm = entry.frontmatter;
  const title = typeof fm.title === "string" ? fm.title : "";
  const tags = stringList(fm.tags);
  const agents = stringList(fm.agents);
  const anchors = entry.evidence.anchors;
  const anchorText = anchors.map((a) => [a.path, a.symbol].filter(Boolean).join(" ")).join("\n");
  const lexical: LexicalDoc = {
    id: entry.id,
    fields: {
      title,
      finding: entry.finding.text,
      anchors: anchorText,
      tags: [...tags, ...agents].join(" "),
      verify: entry.verify.text,
      body: anchors.map((a) => a.note ?? "").join("\n"),
    },
  };
  const embedText = [title, entry.finding.text, anchors.map((a) => a.note ?? a.raw).join("; ")]
    .filter((s) => s.trim())
    .join("\n")
    .slice(0, EMBED_CHARS);
  return {
    id: entry.id,
    lexical,
    embedText,
    lexicalHash: sha256(JSON.stringify(lexical.fields), 32),
    meta: {
      path: entry.path,
      state: entry.state,
      contentHash: sha256(embedText),
      fileHash: entry.hash,
      status: typeof fm.status === "string" ? fm.status : "observed",
      agents,
      tags,
      anchors: anchors.flatMap((a): AnchorRef[] =>
        a.path
          ? [{ path: a.path, ...(a.glob ? { glob: true as const } : {}), ...(a.startLine ? { startLine: a.startLine, endLine: a.endLine ?? a.startLine } : {}), ...(a.symbol ? { symbol: a.symbol } : {}) }]
          : [],
      ),
    },
  };
}

/** The SHA-256 of `text` in hex, its first `hexChars` digits (a string of its own, not a slice that keeps the whole digest). */
export function sha256(text: string, hexChars = 64): string {
  return createHash("sha256").update(text).digest().toString("hex", 0, hexChars / 2);
}

function stringList(value: unknown): string[] {
  if (typeof value === "string") return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}
