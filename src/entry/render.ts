/** Render a new entry file from its parts, through the same surgical editor that later edits it. */
import { editFrontmatter, type FrontmatterEdit } from "./edit.js";
import type { FrontmatterValue } from "./frontmatter-value.js";

export type NewEntryParts = {
  finding: string;
  evidence: string[];
  verify: string[];
  lastConfirmed: string;
  created?: string;
  provenance?: "independent" | "primed";
  title?: string;
  tags?: string[];
  agents?: string[];
  /** Further keys, written after the others in their order. */
  extra?: Readonly<Record<string, FrontmatterValue>>;
};

export function renderEntry(parts: NewEntryParts): string {
  const finding = parts.finding.trim().replace(/\r\n/g, "\n");
  const evidence = parts.evidence.map((e) => e.trim()).filter(Boolean);
  const verify = parts.verify.map((v) => v.trim()).filter(Boolean);
  const section = (label: string, items: string[]) =>
    items.length === 1 ? `${label}: ${items[0]}\n` : `${label}:\n\n${items.map((i) => `- ${i}`).join("\n")}\n`;
  const body = `${finding}\n\n${section("Evidence", evidence)}\n${section("Verify", verify)}`;
  const edits: FrontmatterEdit[] = [
    ...(parts.title ? [{ op: "set", key: "title", value: parts.title } as const] : []),
    { op: "set", key: "lastConfirmed", value: parts.lastConfirmed },
    { op: "set", key: "provenance", value: parts.provenance ?? "independent" },
    ...(parts.created ? [{ op: "set", key: "created", value: parts.created } as const] : []),
    ...(parts.tags?.length ? [{ op: "set", key: "tags", value: parts.tags } as const] : []),
    ...(parts.agents?.length ? [{ op: "set", key: "agents", value: parts.agents } as const] : []),
    ...Object.entries(parts.extra ?? {}).map(([key, value]) => ({ op: "set", key, value }) as const),
  ];
  const result = editFrontmatter(`---\n---\n${body}`, edits);
  if (!result.ok) throw new Error(`internal: cannot render entry frontmatter: ${result.reason}`);
  return result.text;
}

/** A file-name slug from free text: lowercase words joined by '-', at most ~60 characters. */
export function slugify(text: string): string {
  const words = text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, " ")
    .trim()
    .split(/\s+/)
    .filter(Boolean);
  let slug = "";
  for (const word of words) {
    if (slug.length + word.length + 1 > 60) break;
    slug = slug ? `${slug}-${word}` : word;
  }
  return slug || "entry";
}
