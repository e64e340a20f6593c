/**
 * `cairn new [SLUG]`: fields from flags, from `--from FILE|-` (an entry's markdown or JSON fields), or —
 * without `--finding` — from `$VISUAL`/`$EDITOR` on a template holding whatever flags were given.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { slugify } from "../../entry/render.js";
import { CairnError } from "../../errors.js";
import type { KnowledgeBase } from "../../knowledge-base.js";
import { readInputText, unreadableInput } from "../input.js";
import { editorTemplate, fieldsFromText, isEmptyFinding, type NewFields } from "../new-input.js";
import { EXIT, formatDiagnostics, json, list, type Io } from "../output.js";

type Opts = { finding?: string; evidence?: string[]; verify?: string[]; title?: string; tags?: string; agents?: string; from?: string; json?: boolean };

export async function newEntry(kb: KnowledgeBase, io: Io, slug: string | undefined, opts: Opts): Promise<number> {
  let fields: NewFields = opts.from !== undefined ? await fromSource(io, opts.from) : {};
  // Flags given on the command line override what --from supplied.
  fields = { ...fields, ...flagFields(opts), ...(slug ? { slug } : {}) };

  let draft: string | undefined;
  // Without --finding (and --from) the editor writes the entry; with it, the flags are the whole input (scripts never block on an editor).
  if (opts.from === undefined && opts.finding === undefined) {
    const edited = await editInEditor(fields, io);
    if (edited.kind === "cancelled") {
      io.err("cairn new: the finding is empty; nothing was written.");
      return EXIT.failed;
    }
    draft = edited.file;
    fields = { ...edited.fields, ...(fields.slug ? { slug: fields.slug } : {}) };
  }

  const result = await kb.newEntry({
    slug: fields.slug ?? slugify(fields.title ?? fields.finding ?? ""),
    finding: fields.finding ?? "",
    evidence: fields.evidence ?? [],
    verify: fields.verify ?? [],
    ...(fields.title ? { title: fields.title } : {}),
    ...(fields.tags?.length ? { tags: fields.tags } : {}),
    ...(fields.agents?.length ? { agents: fields.agents } : {}),
    ...(fields.frontmatter ? { frontmatter: fields.frontmatter } : {}),
  });
  // The retry names the slug given on the command line: --from alone would name the entry after its finding.
  const keep = draft ? ` Your text is kept in ${draft}: fix it and run cairn new ${fields.slug ? `${shellWord(fields.slug)} ` : ""}--from ${shellWord(draft)}` : "";
  if (result.kind === "created" && draft) await rm(path.dirname(draft), { recursive: true, force: true });
  if (opts.json) {
    json(io, draft && result.kind === "refused" ? { ...result, draft } : result);
    return result.kind === "created" ? EXIT.ok : EXIT.failed;
  }
  if (result.kind === "refused") {
    if (typeof result.problems === "string") io.err(`cairn new: ${result.problems}. Nothing was written.${keep}`);
    else {
      const errors = result.problems.length;
      io.err(formatDiagnostics(result.problems, "human", { errors, warnings: 0 }));
      io.err(`cairn new: the entry was not written; fix the problems above.${keep}`);
    }
    return EXIT.failed;
  }
  io.out(`created ${result.path}`);
  if (result.warnings.length) io.err(formatDiagnostics(result.warnings, "human", { errors: 0, warnings: result.warnings.length }));
  return EXIT.ok;
}

/** `word` as one shell word to paste: as is when it is plain, else single-quoted. */
function shellWord(word: string): string {
  return /^[\w./@%+=:,-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

function flagFields(opts: Opts): NewFields {
  return {
    ...(opts.finding !== undefined ? { finding: opts.finding } : {}),
    ...(opts.evidence?.length ? { evidence: opts.evidence } : {}),
    ...(opts.verify?.length ? { verify: opts.verify } : {}),
    ...(opts.title ? { title: opts.title } : {}),
    ...(opts.tags ? { tags: list(opts.tags) } : {}),
    ...(opts.agents ? { agents: list(opts.agents) } : {}),
  };
}

async function fromSource(io: Io, source: string): Promise<NewFields> {
  let text: string;
  try {
    text = await readInputText(io, source);
  } catch (cause) {
    throw new CairnError("USAGE", `cannot read --from: ${unreadableInput(io, source, cause, "an entry's markdown or its JSON fields, or - for stdin")}`, { cause });
  }
  return fieldsFromText(text, source === "-" ? "stdin" : source);
}

type Edited = { kind: "edited"; fields: NewFields; file: string } | { kind: "cancelled" };

/** Write the template to a temp file, run the editor on it, read the result back. */
async function editInEditor(fields: NewFields, io: Io): Promise<Edited> {
  const editor = process.env.VISUAL?.trim() || process.env.EDITOR?.trim();
  if (!editor) {
    throw new CairnError(
      "USAGE",
      "cairn new needs --finding, --evidence and --verify, or --from FILE|-, or an editor: set $EDITOR (e.g. EDITOR=nano) to write the entry in a template",
    );
  }
  const dir = await mkdtemp(path.join(os.tmpdir(), "cairn-new-"));
  const file = path.join(dir, `${fields.slug ?? "new-entry"}.md`);
  await writeFile(file, editorTemplate(fields), "utf8");
  io.err(`cairn new: waiting for ${editor} to close ${file}…`);
  const code = await runEditor(editor, file);
  if (code !== 0) throw new CairnError("USAGE", `the editor (${editor}) exited with code ${code}; nothing was written. Your text is in ${file}`);
  const edited = fieldsFromText(await readFile(file, "utf8"), file);
  if (isEmptyFinding(edited)) {
    await rm(dir, { recursive: true, force: true });
    return { kind: "cancelled" };
  }
  return { kind: "edited", fields: edited, file };
}

/** Run `$EDITOR FILE` the way git does: through the shell, so the variable may carry arguments (`code --wait`). */
function runEditor(editor: string, file: string): Promise<number> {
  const child =
    process.platform === "win32"
      ? spawn(`${editor} "${file}"`, { shell: true, stdio: "inherit" })
      : spawn("/bin/sh", ["-c", `${editor} "$1"`, editor, file], { stdio: "inherit" });
  return new Promise((resolve, reject) => {
    child.once("error", (cause) => reject(new CairnError("USAGE", `cannot start the editor ${editor}: ${cause.message}`, { cause })));
    child.once("exit", (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });
}
