/** Create a new entry: validate (schema, sections, anchors, sanitization) before anything is written. */
import { stat } from "node:fs/promises";
import path from "node:path";
import type { CairnConfig } from "../config.js";
import { createLinter, targetOf } from "../check/engine.js";
import type { Diagnostic } from "../entry/diagnostic.js";
import { ID_RE, parseEntry, todayUtc } from "../entry/parse.js";
import { renderEntry, type NewEntryParts } from "../entry/render.js";
import { NEW_ENTRY_OWN_KEYS } from "../entry/schema.js";
import { relativePath, type Layout } from "../store/layout.js";
import { listEntryFiles } from "../store/files.js";
import type { NewEntryInput } from "../types/entries.js";

export type { NewEntryInput } from "../types/entries.js";

/** What `planNewEntry` needs: the public input and the date to stamp. */
export type PlanNewEntryInput = NewEntryInput & {
  /** Today's date YYYY-MM-DD (UTC). Default: now. */
  today?: string;
  /** The entries there are, by id (an `id:` key can give a file another id than its name): a new id must be none of them. */
  existing?: ReadonlyMap<string, { path: string }>;
};

export type NewEntryPlan =
  | { ok: true; id: string; abs: string; rel: string; text: string; warnings: Diagnostic[]; layout: Layout }
  | { ok: false; problems: Diagnostic[] | string };

/** The longest slug `new` and `compound` write: a file name of 255 bytes leaves room for `.md` and a temp suffix. */
const MAX_SLUG = 200;

/** Validate and render without writing. */
export async function planNewEntry(layout: Layout, config: CairnConfig, input: PlanNewEntryInput): Promise<NewEntryPlan> {
  const slug = input.slug.trim().replace(/\.md$/i, "");
  if (!ID_RE.test(slug)) {
    return { ok: false, problems: `"${input.slug}" is not a valid slug; expected letters, digits, '-', '_' or '.', e.g. auth-middleware-swallows-ctx-cancel` };
  }
  // A file name longer than the file system takes (255 bytes with `.md`, and room for an archive's temp names) failed
  // with ENAMETOOLONG and the absolute path, as an internal error.
  if (slug.length > MAX_SLUG) return { ok: false, problems: `the slug is ${slug.length} characters long; expected at most ${MAX_SLUG}, e.g. auth-middleware-swallows-ctx-cancel` };
  if (!input.finding.trim()) return { ok: false, problems: "a finding is required (--finding TEXT)" };
  if (!input.evidence.some((e) => e.trim())) return { ok: false, problems: "at least one evidence anchor is required (--evidence 'src/file.ts:10-20, symbol() — note'): evidence first" };
  if (!input.verify.some((v) => v.trim())) return { ok: false, problems: "at least one verification step is required (--verify 'grep for … in src/')" };
  const extra = extraKeys(input.frontmatter);
  if (typeof extra === "string") return { ok: false, problems: extra };
  const today = input.today ?? todayUtc();
  const parts: NewEntryParts = {
    finding: input.finding,
    evidence: input.evidence,
    verify: input.verify,
    lastConfirmed: today,
    created: today,
    provenance: "independent",
    ...(input.title ? { title: input.title } : {}),
    ...(input.tags ? { tags: input.tags } : {}),
    ...(input.agents ? { agents: input.agents } : {}),
    ...(extra ? { extra } : {}),
  };
  const text = renderEntry(parts);
  const abs = path.join(layout.knowledge, `${slug}.md`);
  const rel = relativePath(layout, abs);
  // The same rules, severities and gate as `check` and `inject`: what `new` writes is what inject would hand out.
  const linter = await createLinter(layout, config);
  const bytes = Buffer.from(text, "utf8");
  const read = { ...parseEntry(bytes, { file: rel, today }), bytes };
  const raw = [...read.diagnostics, ...(await linter.entryDiagnostics(targetOf({ abs, rel, state: "active" }, read)))];
  const problems = linter.finalize(raw, [rel]);
  const errors = problems.filter((d) => d.severity === "error");
  if (errors.length) return { ok: false, problems: errors };
  // Ids are unique across knowledge/ and knowledge/archive/, and a file name is taken whatever id its file gives.
  const taken = input.existing?.get(slug);
  if (taken) return { ok: false, problems: `an entry with id "${slug}" already exists (${taken.path}); choose another slug` };
  // Case too: on a case-insensitive checkout (macOS, Windows) Zebra.md and zebra.md are one file.
  const lower = slug.toLowerCase();
  const existing = await listEntryFiles(layout);
  const clash = existing.find((f) => path.basename(f.rel, ".md").toLowerCase() === lower);
  if (clash || (await stat(abs).then(() => true, () => false))) {
    return { ok: false, problems: `a file named ${slug}.md already exists (${clash?.rel ?? rel}); choose another slug` };
  }
  return { ok: true, id: slug, abs, rel, text, warnings: problems.filter((d) => d.severity === "warning"), layout };
}

/** A frontmatter key as an entry writes one. */
const KEY_RE = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;

/** `frontmatter` checked: undefined when none, or a sentence saying what is wrong. */
function extraKeys(frontmatter: NewEntryInput["frontmatter"]): Record<string, string | number | boolean | string[]> | string | undefined {
  if (!frontmatter || !Object.keys(frontmatter).length) return undefined;
  for (const [key, value] of Object.entries(frontmatter)) {
    if (NEW_ENTRY_OWN_KEYS.has(key)) return `the frontmatter key "${key}" is set by cairn new or by its own field, not through frontmatter`;
    if (!KEY_RE.test(key)) return `the frontmatter key ${JSON.stringify(key)} is not a plain key; expected letters, digits, '_' or '-', starting with a letter`;
    const plain = typeof value === "string" || typeof value === "boolean" || (typeof value === "number" && Number.isFinite(value));
    if (!plain && !(Array.isArray(value) && value.every((v) => typeof v === "string"))) {
      const what = Array.isArray(value) ? "a list of other things than strings" : value === null ? "null" : typeof value === "object" ? "a mapping" : typeof value === "number" ? "a number that is not finite" : `a ${typeof value}`;
      return `the frontmatter key "${key}" holds ${what}; expected a string, number, boolean or list of strings`;
    }
  }
  return frontmatter;
}
