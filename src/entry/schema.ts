/** The frontmatter schema: one zod source for validation (per key, with YAML lines) and the published JSON Schema. */
import * as z from "zod";
import { ID_RE } from "./id.js";
import { ENTRY_STATUSES, PROVENANCES } from "./types.js";

const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;

/** True for a real calendar date written `YYYY-MM-DD`. */
export function isIsoDate(value: string): boolean {
  if (!DATE_RE.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}

const isoDate = z
  .string({ error: "expected a date written YYYY-MM-DD, e.g. 2026-02-12" })
  .refine(isIsoDate, { message: "expected a real calendar date written YYYY-MM-DD, e.g. 2026-02-12" })
  .describe("ISO date YYYY-MM-DD");

const idRef = z
  .string({ error: "expected an entry id (the file name without .md)" })
  .regex(ID_RE, "expected an entry id made of letters, digits, '.', '_' or '-', not starting with '.', '_' or '-' and without '..'");
const idList = z.union([idRef, z.array(idRef)], { error: "expected an entry id or a list of entry ids" });
const nameList = z.array(z.string().min(1), { error: "expected a list of names, e.g. [security, performance]" });

export const FRONTMATTER_FIELDS = {
  lastConfirmed: isoDate.describe("Last time the finding was independently re-observed (YYYY-MM-DD, not in the future)."),
  provenance: z.enum(PROVENANCES as [string, ...string[]], { error: `expected one of: ${PROVENANCES.join(", ")}` }).describe(
    "independent: flagged without seeing the entry; primed: the agent had it in context.",
  ),
  id: idRef.describe("Stable id; defaults to the file name without .md."),
  title: z.string({ error: "expected a one-line title" }).min(1).describe("Short title."),
  tags: nameList.describe("Topic tags."),
  agents: nameList.describe("Agent names or domains this entry is meant for; omitted = every agent."),
  status: z.enum(ENTRY_STATUSES as [string, ...string[]], { error: `expected one of: ${ENTRY_STATUSES.join(", ")}` }).describe(
    "Claim lifecycle status (default observed).",
  ),
  confidence: z.number({ error: "expected a number between 0 and 1" }).min(0).max(1).describe("Confidence 0–1."),
  created: isoDate.describe("Creation date."),
  supersedes: idList.describe("Entries this one replaces."),
  supersededBy: idList.describe("The entry that replaced this one."),
  contradicts: idList.describe("Entries this one contradicts."),
  archived: isoDate.describe("Date the entry was archived (set by the tool)."),
  archivedReason: z.string({ error: "expected a short reason" }).min(1).describe("Why the entry was archived (set by the tool)."),
} as const;

export type KnownKey = keyof typeof FRONTMATTER_FIELDS;
export const KNOWN_KEYS = new Set<string>(Object.keys(FRONTMATTER_FIELDS));
export const REQUIRED_KEYS: readonly KnownKey[] = ["lastConfirmed", "provenance"];
/** Keys `cairn new` writes itself or takes as fields of their own: a draft's other keys are carried over as given. */
export const NEW_ENTRY_OWN_KEYS: ReadonlySet<string> = new Set<KnownKey>(["lastConfirmed", "provenance", "created", "id", "title", "tags", "agents"]);

export const frontmatterSchema = z
  .object(FRONTMATTER_FIELDS)
  .partial()
  .required({ lastConfirmed: true, provenance: true })
  .catchall(z.unknown());

/** JSON Schema of the entry frontmatter, for editors (yaml-language-server) to validate while humans type. */
export function frontmatterJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(frontmatterSchema, { unrepresentable: "any" }) as Record<string, unknown>;
  return {
    ...schema,
    $id: "https://cairn.dev/schema/entry-frontmatter.json",
    title: "cairn knowledge entry frontmatter",
    description: "YAML frontmatter of a cairn knowledge entry (knowledge/*.md).",
  };
}
