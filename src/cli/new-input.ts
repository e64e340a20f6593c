/**
 * Input for `cairn new` besides flags: `--from FILE|-` (an entry's markdown, or JSON fields) and the
 * `$EDITOR` template. Both become the same fields the flags give.
 */
import * as z from "zod";
import { CairnError } from "../errors.js";
import { parseEntry } from "../entry/parse.js";
import { NEW_ENTRY_OWN_KEYS } from "../entry/schema.js";
import { splitSteps } from "../entry/sections.js";
import { parseJson } from "../text/json.js";

/** What `cairn new` needs; every field may come from flags, `--from` or the editor. */
export type NewFields = {
  slug?: string;
  finding?: string;
  evidence?: string[];
  verify?: string[];
  title?: string;
  tags?: string[];
  agents?: string[];
  /** Other frontmatter keys of a `--from` or edited file (e.g. `confidence`), carried over as given. */
  frontmatter?: Record<string, string | number | boolean | string[]>;
};

const list = z.union([z.string().min(1).transform((s) => [s]), z.array(z.string())]);
const jsonFields = z
  .object({
    slug: z.string().min(1).optional(),
    finding: z.string(),
    evidence: list,
    verify: list,
    title: z.string().optional(),
    tags: z.array(z.string()).optional(),
    agents: z.array(z.string()).optional(),
  })
  .strict();

export const JSON_EXAMPLE =
  '{"slug":"ctx-cancel","finding":"Middleware swallows context cancellation errors.","evidence":["src/auth.ts:47-52, handleRequest() — ctx.Err() not checked"],"verify":["grep for ctx.Err() in src/"],"tags":["go"]}';

/** Lines of the editor template that are guidance, not content. */
const COMMENT = /<!--[\s\S]*?-->\n?/g;

/**
 * Fields from `--from` text: JSON when it starts with `{`, else an entry file (frontmatter optional;
 * `lastConfirmed` and `provenance` are set by cairn, HTML comments are ignored).
 */
export function fieldsFromText(text: string, source: string): NewFields {
  const trimmed = text.replace(/^\uFEFF/, "").trim();
  if (trimmed.startsWith("{")) return fieldsFromJson(trimmed, source);
  return fieldsFromMarkdown(trimmed, source);
}

function fieldsFromJson(text: string, source: string): NewFields {
  let raw: unknown;
  try {
    raw = parseJson(text);
  } catch (cause) {
    throw new CairnError("USAGE", `${source} starts with "{" but is not valid JSON: ${(cause as Error).message}; expected ${JSON_EXAMPLE}`, { cause });
  }
  const parsed = jsonFields.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.slice(0, 5).map((i) => `  ${i.path.join(".") || "(top level)"}: ${i.message}`).join("\n");
    throw new CairnError("USAGE", `${source} is not a valid new entry:\n${problems}\nexpected ${JSON_EXAMPLE}`);
  }
  const { slug, finding, evidence, verify, title, tags, agents } = parsed.data;
  return { finding, evidence, verify, ...(slug ? { slug } : {}), ...(title ? { title } : {}), ...(tags ? { tags } : {}), ...(agents ? { agents } : {}) };
}

function fieldsFromMarkdown(text: string, source: string): NewFields {
  const clean = text.replace(COMMENT, "").trim();
  // The frontmatter is optional here: cairn writes lastConfirmed and provenance itself.
  const withFrontmatter = clean.startsWith("---") ? clean : `---\n---\n${clean}`;
  const { entry, diagnostics } = parseEntry(Buffer.from(`${withFrontmatter}\n`, "utf8"), { file: source });
  if (!entry) {
    const first = diagnostics[0];
    throw new CairnError("USAGE", `${source} is not an entry: ${first ? `line ${first.line}: ${first.message}` : "cannot parse it"}`);
  }
  const fm = entry.frontmatter;
  const strings = (value: unknown) => (Array.isArray(value) ? value.filter((v): v is string => typeof v === "string" && v.trim() !== "") : []);
  const tags = strings(fm.tags);
  const agents = strings(fm.agents);
  const frontmatter = otherKeys(fm, source);
  return {
    finding: entry.finding.text,
    evidence: entry.evidence.text ? splitSteps(entry.evidence.text) : [],
    verify: entry.verify.steps,
    ...(typeof fm.id === "string" ? { slug: fm.id } : {}),
    ...(typeof fm.title === "string" && fm.title.trim() ? { title: fm.title.trim() } : {}),
    ...(tags.length ? { tags } : {}),
    ...(agents.length ? { agents } : {}),
    ...(Object.keys(frontmatter).length ? { frontmatter } : {}),
  };
}


/**
 * Every other key of a draft's frontmatter, carried into the entry as written (`confidence: high` was dropped without a
 * word). A value the entry format cannot write back (a mapping, a list of other things than strings, null) is refused by name.
 */
function otherKeys(fm: Record<string, unknown>, source: string): NonNullable<NewFields["frontmatter"]> {
  const out: NonNullable<NewFields["frontmatter"]> = {};
  for (const [key, value] of Object.entries(fm)) {
    if (NEW_ENTRY_OWN_KEYS.has(key)) continue;
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") out[key] = value;
    else if (Array.isArray(value) && value.every((v) => typeof v === "string")) out[key] = value;
    else {
      const what = value === null ? "an empty value" : Array.isArray(value) ? "a list of other things than strings" : "a nested mapping";
      throw new CairnError("USAGE", `${source}: the frontmatter key "${key}" holds ${what}, which cairn new cannot carry over; expected a string, number, boolean or list of strings (add it to the entry after it is created)`);
    }
  }
  return out;
}

/** The markdown `$EDITOR` opens: the fields given so far, placeholders for the rest, guidance in comments. */
export function editorTemplate(fields: NewFields): string {
  const yamlList = (items: string[] | undefined) => `[${(items ?? []).map((i) => JSON.stringify(i)).join(", ")}]`;
  const section = (label: string, items: string[] | undefined, placeholder: string) => {
    const given = (items ?? []).filter((i) => i.trim());
    if (given.length === 1) return `${label}: ${given[0]}\n`;
    if (given.length > 1) return `${label}:\n\n${given.map((i) => `- ${i}`).join("\n")}\n`;
    return `${label}: ${placeholder}\n`;
  };
  return [
    "---",
    `title: ${fields.title ? JSON.stringify(fields.title) : '""'}`,
    `tags: ${yamlList(fields.tags)}`,
    `agents: ${yamlList(fields.agents)}`,
    "---",
    "<!--",
    "  A new cairn entry. Lines inside HTML comments are ignored; lastConfirmed and provenance are set for you.",
    "  Finding: 1–3 sentences stating a generalised heuristic (not a one-off bug).",
    "  Evidence: one or more anchors — a repo-relative path or glob, optional :line or :start-end, optional symbol() — then a note.",
    "  Verify: 1–3 steps a reviewer can follow to check the finding.",
    "  Save and quit to create the entry; leave the finding empty to cancel.",
    "-->",
    fields.finding?.trim() ?? "",
    "",
    section("Evidence", fields.evidence, "src/path/to/file.ts:10-20, functionName() — what the code does wrong"),
    section("Verify", fields.verify, "grep for … in src/"),
  ].join("\n");
}

/** True when the edited template still has no finding: the user cancelled. */
export function isEmptyFinding(fields: NewFields): boolean {
  return !fields.finding?.trim();
}
