/**
 * Completion inside an entry's frontmatter: the keys cairn understands (with their docs from the
 * schema, src/entry/schema.ts) at a key position; the values of `provenance` and `status`; entry
 * ids in `supersedes` / `supersededBy` / `contradicts` (a scalar, a `[flow, list]` or `- items`);
 * today's date for the date keys.
 */
import type { CompletionItem, CompletionItemKind, CompletionList, Position, Range } from "vscode-languageserver";
import { REFERENCE_KEYS } from "../check/references.js";
import { idFromPath } from "../entry/id.js";
import { FRONTMATTER_FIELDS, REQUIRED_KEYS, type KnownKey } from "../entry/schema.js";
import { ENTRY_STATUSES, PROVENANCES } from "../entry/types.js";
import { splitLines } from "./positions.js";
import type { OpenEntry, Workspace } from "./workspace.js";

const PROPERTY: CompletionItemKind = 10;
const ENUM_MEMBER: CompletionItemKind = 20;
const REFERENCE: CompletionItemKind = 18;
const VALUE: CompletionItemKind = 12;
/** Entry ids offered at most; the list is marked incomplete past it, so the client asks again as the user types. */
const MAX_IDS = 200;
const DATE_KEYS = new Set(["lastConfirmed", "created", "archived"]);
const ENUMS: Record<string, readonly string[]> = { provenance: PROVENANCES, status: ENTRY_STATUSES };

/** Where the cursor is in the frontmatter: at a key, or in the value of `key`; `prefix` is what is typed of it so far. */
export type Slot = { kind: "key"; prefix: string; present: Set<string> } | { kind: "value"; key: string; prefix: string };

export async function complete(ws: Workspace, open: OpenEntry, openEntries: readonly OpenEntry[], position: Position): Promise<CompletionList> {
  const slot = slotAt(splitLines(open.text), position);
  const none: CompletionList = { isIncomplete: false, items: [] };
  if (!slot) return none;
  const range: Range = { start: { line: position.line, character: position.character - slot.prefix.length }, end: position };
  if (slot.kind === "key") return { isIncomplete: false, items: keyItems(slot.present, range) };
  const values = ENUMS[slot.key];
  if (values) return { isIncomplete: false, items: values.map((value, i) => item(value, ENUM_MEMBER, range, doc(slot.key), i)) };
  if (DATE_KEYS.has(slot.key)) return { isIncomplete: false, items: [{ ...item(ws.kb.today(), VALUE, range, "today (UTC)", 0), detail: "today" }] };
  if ((REFERENCE_KEYS as readonly string[]).includes(slot.key)) return idItems(ws, open, openEntries, slot.prefix, range);
  return none;
}

export function slotAt(lines: readonly string[], position: Position): Slot | undefined {
  if ((lines[0] ?? "").trimEnd() !== "---" || position.line < 1) return undefined;
  const close = lines.findIndex((l, i) => i > 0 && l.trimEnd() === "---");
  if (close !== -1 && position.line >= close) return undefined;
  const line = lines[position.line] ?? "";
  const before = line.slice(0, position.character);
  if (/^[A-Za-z]*$/.test(before) && !line.slice(position.character).includes(":")) {
    return { kind: "key", prefix: before, present: keysIn(lines.slice(1, close === -1 ? lines.length : close), position.line - 1) };
  }
  const pair = /^([A-Za-z][\w-]*)[ \t]*:[ \t]*(.*)$/.exec(before);
  if (pair) {
    const flow = /\[([^\]]*)$/.exec(pair[2]!);
    return { kind: "value", key: pair[1]!, prefix: unquote(flow ? (flow[1]!.split(",").pop() ?? "").trimStart() : pair[2]!) };
  }
  const listItem = /^[ \t]+-[ \t]*(\S*)$|^-[ \t]+(\S*)$/.exec(before);
  if (!listItem) return undefined;
  for (let i = position.line - 1; i >= 1; i--) {
    const above = lines[i] ?? "";
    if (!above.trim() || /^[ \t]*-/.test(above)) continue;
    const owner = /^([A-Za-z][\w-]*)[ \t]*:[ \t]*$/.exec(above);
    return owner ? { kind: "value", key: owner[1]!, prefix: unquote(listItem[1] ?? listItem[2] ?? "") } : undefined;
  }
  return undefined;
}

function keyItems(present: Set<string>, range: Range): CompletionItem[] {
  const keys = Object.keys(FRONTMATTER_FIELDS) as KnownKey[];
  return keys
    .filter((key) => !present.has(key))
    .map((key, i) => {
      const required = REQUIRED_KEYS.includes(key);
      return { ...item(key, PROPERTY, range, doc(key), required ? i : 100 + i, `${key}: `), detail: required ? "required" : "optional" };
    });
}

async function idItems(ws: Workspace, open: OpenEntry, openEntries: readonly OpenEntry[], prefix: string, range: Range): Promise<CompletionList> {
  const self = ws.parse(open).entry?.id ?? idFromPath(open.file.rel);
  const { entries } = await ws.knowledge(openEntries);
  const needle = prefix.toLowerCase();
  const matching = entries.filter((e) => e.id !== self && e.id.toLowerCase().includes(needle)).sort((a, b) => a.id.localeCompare(b.id));
  const items = matching.slice(0, MAX_IDS).map((e, i) => {
    const title = typeof e.frontmatter.title === "string" ? e.frontmatter.title : e.finding.text.split("\n")[0]!.slice(0, 120);
    const state = e.state === "archived" ? " (archived)" : "";
    return { ...item(e.id, REFERENCE, range, `${e.finding.text.slice(0, 400)}\n\n${e.path}${state}`, i), detail: `${title}${state}` };
  });
  return { isIncomplete: matching.length > MAX_IDS, items };
}

function item(label: string, kind: CompletionItemKind, range: Range, documentation: string, order: number, newText = label): CompletionItem {
  return { label, kind, documentation: { kind: "markdown", value: documentation }, sortText: String(order).padStart(4, "0"), filterText: label, textEdit: { range, newText } };
}

/** The schema's one-line doc of a key. */
function doc(key: string): string {
  const field = FRONTMATTER_FIELDS[key as KnownKey];
  const required = REQUIRED_KEYS.includes(key as KnownKey) ? " Required." : "";
  return `\`${key}\`: ${field?.description ?? ""}${required}`;
}

/** Top-level keys written in the frontmatter's lines, except on line `skip` (the one being typed). */
function keysIn(lines: readonly string[], skip: number): Set<string> {
  const out = new Set<string>();
  lines.forEach((line, i) => {
    const key = /^([A-Za-z][\w-]*)[ \t]*:/.exec(line)?.[1];
    if (key && i !== skip) out.add(key);
  });
  return out;
}

function unquote(text: string): string {
  return text.replace(/^["']/, "");
}
