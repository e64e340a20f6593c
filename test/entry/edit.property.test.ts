/**
 * Property tests for surgical frontmatter edits. Entries are generated as a model: a list of
 * key segments (the exact lines a key owns) and filler segments (comments, blank lines), plus
 * a body. For every random edit the result must equal the model with only that key's lines
 * replaced by one line, one line inserted, or the key's lines removed — byte for byte.
 */
import fc from "fast-check";
import { isDeepStrictEqual } from "node:util";
import { describe, expect, it } from "vitest";
import { parseDocument } from "yaml";
import { type FrontmatterEdit, type FrontmatterValue, editFrontmatter } from "../../src/entry/edit.js";

type Segment = { key?: string; lines: string[]; keyText?: string; comment?: string; block?: boolean };
type Model = {
  bom: string;
  eol: "\n" | "\r\n";
  /** undefined: the file has no frontmatter block. */
  markers?: { open: string; close: string };
  segments: Segment[];
  body: string;
};

const KNOWN = ["lastConfirmed", "provenance", "id", "title", "tags", "agents", "status", "confidence", "archived", "archivedReason"];
const SPECIAL = new Set(["y", "n", "yes", "no", "on", "off", "true", "false", "null", "nan", "inf"]);

// ---------- value renderings: the text after `key:` and any continuation lines ----------

type Rendered = { inline: string; more: string[]; commentSlot: "inline" | "last" | "none"; block?: boolean };

const word = fc.stringMatching(/^[a-z][a-z0-9_./()-]{0,9}$/).filter((w) => !SPECIAL.has(w.toLowerCase()));
const words = fc.array(word, { minLength: 1, maxLength: 4 }).map((ws) => ws.join(" "));
const tricky = fc.constantFrom(
  "a: b", "# x", "x # y", "yes", "", " padded ", "it's", 'q"uote', "back\\slash", "tab\there", "new\nline",
  "2026-02-12", "123", "1:20", "null", "~", "- item", "[x]", "{y}", "@at", "%pct", "*star", "&amp", "!bang",
  "|pipe", ">gt", "?q", "a,b", "💥 rock", "\u2028", "---", "...", "end:",
);
const anyText = fc.oneof(tricky, fc.string({ unit: "grapheme", maxLength: 16 }), words);
const singleLine = fc
  .string({ unit: "grapheme", maxLength: 16 })
  .filter((s) => !/[\p{Cc}\u2028\u2029\uFEFF]/u.test(s));
const dq = (s: string): string => JSON.stringify(s);
const flowItem = fc.oneof(word, anyText.map(dq));
const blockItem = fc.oneof(word, anyText.map(dq), singleLine.map((s) => `'${s.replaceAll("'", "''")}'`));
const sep = fc.constantFrom(" ", " ", "  ");

const inlineValue: fc.Arbitrary<Rendered> = fc
  .tuple(
    sep,
    fc.oneof(
      words,
      singleLine.map((s) => `'${s.replaceAll("'", "''")}'`),
      anyText.map(dq),
      fc.integer({ min: -100000, max: 100000 }).map(String),
      fc.double({ min: -1e6, max: 1e6, noNaN: true }).filter((d) => !Object.is(d, -0)).map(String),
      fc.constantFrom("true", "false", "2026-02-12", "~", "null"),
      fc.array(flowItem, { maxLength: 4 }).map((items) => `[${items.join(", ")}]`),
      fc.tuple(word, anyText).map(([a, b]) => `{a: ${a}, b: ${dq(b)}}`),
    ),
  )
  .map(([gap, text]) => ({ inline: gap + text, more: [], commentSlot: "inline" }));

const interleave = (items: string[], comment: string, where: number): string[] =>
  items.length < 2 ? items : [...items.slice(0, 1 + (where % (items.length - 1))), comment, ...items.slice(1 + (where % (items.length - 1)))];

const multiLineValue: fc.Arbitrary<Rendered> = fc.oneof(
  // null: nothing after the colon
  fc.constant<Rendered>({ inline: "", more: [], commentSlot: "inline" }),
  // multi-line plain and double-quoted scalars
  fc.tuple(words, fc.array(words, { minLength: 1, maxLength: 2 })).map(([first, rest]) => ({
    inline: ` ${first}`,
    more: rest.map((w) => `  ${w}`),
    commentSlot: "none" as const,
  })),
  fc.tuple(words, words).map(([a, b]) => ({ inline: ` "${a}`, more: [`  ${b}"`], commentSlot: "last" as const })),
  // multi-line flow sequences, closed indented or at column 0
  fc.tuple(fc.array(flowItem, { minLength: 1, maxLength: 3 }), fc.boolean()).map(([items, col0]) => ({
    inline: col0 ? " [" : ` [${items[0]},`,
    more: col0 ? [...items.map((i) => `  ${i},`), "]"] : [...items.slice(1).map((i) => `  ${i},`), "  z]"],
    commentSlot: "last" as const,
  })),
  // block sequences, indented or at column 0, with an optional inner comment
  fc
    .tuple(fc.array(blockItem, { minLength: 1, maxLength: 4 }), fc.constantFrom("  ", "", "    "), fc.option(fc.nat()))
    .map(([items, indent, inner]) => ({
      inline: "",
      more: interleave(
        items.map((i) => `${indent}- ${i}`),
        `${indent}# inner`,
        inner ?? -1,
      ).filter((_, k, all) => inner !== null || all[k] !== `${indent}# inner`),
      commentSlot: "inline" as const,
    })),
  // nested mapping
  fc.tuple(word, anyText, fc.boolean()).map(([a, b, inner]) => ({
    inline: "",
    more: inner ? [`  a: ${a}`, "  # inner", `  b: ${dq(b)}`] : [`  a: ${a}`, `  b: ${dq(b)}`],
    commentSlot: "inline" as const,
  })),
  // block scalars; content may contain lines that look like comments and an inner blank line
  fc
    .tuple(
      fc.constantFrom("|", "|-", ">", ">-", "|2", ">2-"),
      words,
      fc.array(fc.oneof(words, fc.constant("# not a comment"), words.map((w) => `  ${w}`)), { maxLength: 3 }),
      fc.boolean(),
    )
    .map(([header, first, rest, blank]) => ({
      inline: ` ${header}`,
      more: [`  ${first}`, ...(blank && rest.length > 0 ? [""] : []), ...rest.map((r) => `  ${r}`)],
      commentSlot: "inline" as const,
      block: true,
    })),
);

const keyName = fc.oneof(
  fc.constantFrom(...KNOWN),
  fc.stringMatching(/^[a-z][a-zA-Z0-9_]{1,8}$/).filter((k) => !SPECIAL.has(k.toLowerCase())),
);

const keySegment = fc
  .tuple(
    keyName,
    fc.constantFrom("plain", "plain", "plain", "double", "single", "spaced"),
    fc.oneof(inlineValue, multiLineValue),
    fc.option(fc.constantFrom("# note", "#", "# a: b # c"), { freq: 3 }),
    fc.constantFrom(" ", "  ", "\t"),
  )
  .map(([key, quoting, value, comment, commentGap]): Segment => {
    const keyText =
      quoting === "double" ? `"${key}":` : quoting === "single" ? `'${key}':` : quoting === "spaced" ? `${key} :` : `${key}:`;
    const lines = [keyText + value.inline, ...value.more];
    let kept: string | undefined;
    if (comment !== null && value.commentSlot !== "none") {
      const slot = value.commentSlot === "inline" ? 0 : lines.length - 1;
      lines[slot] += commentGap + comment;
      if (slot === 0) kept = commentGap + comment;
    }
    return { key, keyText, lines, block: value.block === true, ...(kept === undefined ? {} : { comment: kept }) };
  });

const filler = (afterBlockScalar: boolean): fc.Arbitrary<string[]> =>
  fc.array(
    afterBlockScalar
      ? fc.constantFrom("", " ", "  ", "# comment", "#", "# --- not a marker", "#key: value")
      : fc.constantFrom("", " ", "  ", "# comment", "#", "# --- not a marker", "#key: value", "  # indented comment"),
    { maxLength: 2 },
  );

const bodyLine = fc.oneof(
  fc.constantFrom("", "---", "...", "--- ", "title: not frontmatter", "# Heading", "Evidence: a.go:1-2", "  indented", "\t", "- item"),
  words,
  fc.string({ unit: "grapheme", maxLength: 20 }).map((s) => s.replace(/[\r\n]/g, "")),
);

const modelArb: fc.Arbitrary<Model> = fc
  .record({
    bom: fc.constantFrom("", "\uFEFF"),
    eol: fc.constantFrom<"\n" | "\r\n">("\n", "\r\n"),
    absent: fc.constantFrom(true, ...Array<false>(9).fill(false)),
    open: fc.constantFrom("---", "---", "---  "),
    close: fc.constantFrom("---", "---", "...", "--- "),
    lead: filler(false),
    keys: fc.uniqueArray(keySegment, { selector: (s) => s.key, maxLength: 8 }),
    fillerSeeds: fc.array(fc.nat(), { minLength: 8, maxLength: 8 }),
    fillers: fc.array(filler(false), { minLength: 8, maxLength: 8 }),
    blockFillers: fc.array(filler(true), { minLength: 8, maxLength: 8 }),
    body: fc.array(fc.tuple(bodyLine, fc.constantFrom("same", "same", "same", "other", "none")), { maxLength: 6 }),
  })
  .map((r) => {
    const segments: Segment[] = [];
    if (r.lead.length > 0) segments.push({ lines: r.lead });
    r.keys.forEach((segment, i) => {
      const block = segment.block === true;
      segments.push(segment);
      const fill = block ? r.blockFillers[i]! : r.fillers[i]!;
      if (fill.length > 0) segments.push({ lines: fill });
    });
    const other = r.eol === "\n" ? "\r\n" : "\n";
    let body = r.body
      .map(([line, ending], i) => line + (ending === "none" && i === r.body.length - 1 ? "" : ending === "other" ? other : r.eol))
      .join("");
    if (r.absent && /^---[ \t]*(?:\r?\n|$)/.test(body)) body = `intro${r.eol}${body}`;
    // Without frontmatter the file's first line ending decides the ending of the created block.
    const firstEnding = /\r?\n/.exec(body)?.[0];
    return {
      bom: r.bom,
      eol: r.absent ? ((firstEnding ?? "\n") as "\n" | "\r\n") : r.eol,
      ...(r.absent ? {} : { markers: { open: r.open, close: r.close } }),
      segments: r.absent ? [] : segments,
      body,
    };
  });

// ---------- rendering and checking ----------

function render(model: Model, from = 0, to = model.segments.length): string {
  const lines = model.segments.slice(from, to).flatMap((s) => s.lines);
  return lines.map((line) => line + model.eol).join("");
}

function whole(model: Model): string {
  if (model.markers === undefined) return model.bom + model.body;
  const { open, close } = model.markers;
  return `${model.bom}${open}${model.eol}${render(model)}${close}${model.eol}${model.body}`;
}

function parseFrontmatter(model: Model): unknown {
  const doc = parseDocument(render(model));
  expect(doc.errors.map((e) => e.message)).toEqual([]);
  return doc.toJS() ?? {};
}

/** `actual` must be `prefix + X + eol + suffix` for a single line X; returns X. */
function singleLineBetween(actual: string, prefix: string, suffix: string, eol: string): string {
  expect(actual.startsWith(prefix)).toBe(true);
  expect(actual.endsWith(suffix)).toBe(true);
  const middle = actual.slice(prefix.length, actual.length - suffix.length);
  expect(middle.endsWith(eol)).toBe(true);
  const line = middle.slice(0, middle.length - eol.length);
  expect(line).not.toMatch(/[\r\n]/);
  return line;
}

/**
 * Removing the key at `index` is refused (documented) when a block scalar ends right above it
 * and an indented comment follows it before any column-0 line: the comment would become content.
 */
function removalJoinsBlockScalar(model: Model, index: number): boolean {
  let above = index - 1;
  for (; above >= 0 && model.segments[above]!.key === undefined; above--) {
    if (model.segments[above]!.lines.some((line) => /^\S/.test(line))) return false;
  }
  if (above < 0 || model.segments[above]!.block !== true) return false;
  for (let below = index + 1; below < model.segments.length && model.segments[below]!.key === undefined; below++) {
    for (const line of model.segments[below]!.lines) {
      if (/^\S/.test(line)) return false;
      if (/^\s+#/.test(line)) return true;
    }
  }
  return false;
}

/** Check one edit's result against the model; return the model after the edit. */
function step(model: Model, data: Record<string, unknown>, edit: FrontmatterEdit, actual: string): Model {
  const index = model.segments.findIndex((s) => s.key === edit.key);
  if (edit.op === "remove") {
    if (index === -1) {
      expect(actual).toBe(whole(model));
      return model;
    }
    const next = { ...model, segments: model.segments.filter((_, i) => i !== index) };
    expect(actual).toBe(whole(next));
    return next;
  }
  if (model.markers === undefined) {
    const prefix = `${model.bom}---${model.eol}`;
    const line = singleLineBetween(actual, prefix, `---${model.eol}${model.body}`, model.eol);
    expect(line.startsWith(`${edit.key}: `)).toBe(true);
    return { ...model, markers: { open: "---", close: "---" }, segments: [{ key: edit.key, keyText: `${edit.key}:`, lines: [line] }] };
  }
  const { open, close } = model.markers;
  const head = `${model.bom}${open}${model.eol}`;
  const tail = `${close}${model.eol}${model.body}`;
  if (index !== -1 && isDeepStrictEqual(data[edit.key], edit.value)) {
    expect(actual).toBe(whole(model));
    return model;
  }
  if (index !== -1) {
    const segment = model.segments[index]!;
    const prefix = head + render(model, 0, index);
    const line = singleLineBetween(actual, prefix, render(model, index + 1) + tail, model.eol);
    expect(line.startsWith(segment.keyText!)).toBe(true);
    if (segment.comment !== undefined) expect(line.endsWith(segment.comment)).toBe(true);
    const segments = [...model.segments];
    segments[index] = { ...segment, lines: [line], block: false };
    return { ...model, segments };
  }
  const lastKey = model.segments.findLastIndex((s) => s.key !== undefined);
  const at = lastKey === -1 ? model.segments.length : lastKey + 1;
  const line = singleLineBetween(actual, head + render(model, 0, at), render(model, at) + tail, model.eol);
  expect(line.startsWith(`${edit.key}: `)).toBe(true);
  const segments = [...model.segments];
  segments.splice(at, 0, { key: edit.key, keyText: `${edit.key}:`, lines: [line] });
  return { ...model, segments };
}

const setValue = fc.oneof(
  anyText,
  fc.constantFrom("2026-02-12", "independent", "primed", "decayed: injected in 10 runs without independent confirmation"),
  fc.integer({ min: -1000, max: 1000 }),
  fc.double({ min: -10, max: 10, noNaN: true }).filter((d) => !Object.is(d, -0)),
  fc.boolean(),
  fc.array(anyText, { maxLength: 4 }),
);

const editSpec = fc.record({
  remove: fc.constantFrom(false, false, false, true),
  existing: fc.constantFrom(true, true, true, false),
  pick: fc.nat(),
  reuse: fc.constantFrom(false, false, false, true),
  value: setValue,
});

function isSettable(value: unknown): value is FrontmatterValue {
  if (typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value);
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}

describe("editFrontmatter properties", () => {
  it("changes only the edited key's lines, parses to the expected mapping, and is idempotent", () => {
    fc.assert(
      fc.property(modelArb, fc.array(editSpec, { minLength: 1, maxLength: 3 }), (initial, specs) => {
        const original = whole(initial);
        let model = initial;
        let data = (model.markers === undefined ? {} : parseFrontmatter(model)) as Record<string, unknown>;
        let current = original;
        const edits: FrontmatterEdit[] = [];
        let refused = false;
        for (const spec of specs) {
          const keys = model.segments.flatMap((s) => (s.key === undefined ? [] : [s.key]));
          const key = spec.existing && keys.length > 0 ? keys[spec.pick % keys.length]! : KNOWN[spec.pick % KNOWN.length]!;
          const reused = data[key];
          const edit: FrontmatterEdit = spec.remove
            ? { op: "remove", key }
            : { op: "set", key, value: spec.reuse && isSettable(reused) ? reused : spec.value };
          const result = editFrontmatter(current, [edit]);
          const index = model.segments.findIndex((s) => s.key === key);
          if (edit.op === "remove" && index !== -1 && removalJoinsBlockScalar(model, index)) {
            expect(result).toMatchObject({ ok: false, reason: expect.stringMatching(/join a block scalar/) });
            refused = true;
            continue;
          }
          if (!result.ok) throw new Error(`refused ${JSON.stringify(edit)} on ${JSON.stringify(current)}: ${result.reason}`);
          model = step(model, data, edit, result.text);
          expect(result.changed).toBe(result.text !== current);
          data = { ...data };
          if (edit.op === "set") data[key] = edit.value;
          else delete data[key];
          if (model.markers !== undefined) expect(parseFrontmatter(model)).toEqual(data);
          if (edit.op === "set") {
            expect(editFrontmatter(result.text, [edit])).toEqual({ ok: true, text: result.text, changed: false });
          }
          current = result.text;
          edits.push(edit);
        }
        if (!refused) expect(editFrontmatter(original, edits)).toEqual({ ok: true, text: current, changed: current !== original });
      }),
      { numRuns: 2500 },
    );
  }, 120_000);

  it("round-trips any settable value through yaml, in block and flow position", () => {
    fc.assert(
      fc.property(setValue, fc.constantFrom("---\n---\n", "---\r\nk: [old]\r\n---\r\nbody"), (value, text) => {
        const result = editFrontmatter(text, [{ op: "set", key: "k", value }]);
        if (!result.ok) throw new Error(result.reason);
        const yamlText = result.text.split(/^---\r?$/m)[1]!;
        expect(parseDocument(yamlText).toJS()).toEqual({ k: value });
        expect(parseDocument(yamlText, { version: "1.1" }).errors).toEqual([]);
      }),
      { numRuns: 1500 },
    );
  });
});
