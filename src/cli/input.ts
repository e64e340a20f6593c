/** Read JSON input for record/compound from a file or stdin ('-'), validated with clear errors. */
import { readFile } from "node:fs/promises";
import path from "node:path";
import type * as z from "zod";
import { CairnError } from "../errors.js";
import type { Io } from "./output.js";
import { parseJson } from "../text/json.js";
import { decodeUtf8 } from "../text/utf8.js";

/**
 * A file argument's text: '-' is standard input; a relative path resolves against the command's working directory. A
 * leading BOM (as Windows editors write) is dropped, as for cairn.config.json and `new --from`. Bytes that are not
 * UTF-8 are refused with where they are (`lenient`: replaced by U+FFFD instead, for a diff, whose files may be in any
 * encoding): decoded silently, a finding's text was stored with U+FFFD and matched nothing it should.
 */
export async function readInputText(io: Io, source: string, options: { lenient?: boolean } = {}): Promise<string> {
  let text: string;
  const given = source === "-" && io.stdin ? await io.stdin() : undefined;
  if (typeof given === "string") text = given;
  else {
    const bytes = given ?? (source === "-" ? await readStdinBytes() : await readFile(path.resolve(io.cwd ?? process.cwd(), source)));
    const decoded = options.lenient ? { text: bytes.toString("utf8") } : decodeUtf8(bytes);
    if ("invalid" in decoded) {
      const { line, column, byte } = decoded.invalid;
      throw new CairnError("USAGE", `${source === "-" ? "stdin" : source}:${line}:${column}: byte 0x${byte.toString(16).padStart(2, "0")} is not UTF-8; expected UTF-8 text — re-save it as UTF-8 (e.g. \`iconv -f latin1 -t utf-8\`)`);
    }
    text = decoded.text;
  }
  return text.replace(/^\uFEFF/, "");
}

/**
 * Why a file argument could not be read, in words and with what was expected (`no such file`, `is a directory`),
 * instead of Node's `ENOENT: no such file or directory, open '/abs/path'`.
 */
export function unreadableInput(io: Io, source: string, cause: unknown, expected: string): string {
  // Bytes that are not UTF-8: the message already says where and what was expected.
  if (cause instanceof CairnError) return cause.message;
  const abs = path.resolve(io.cwd ?? process.cwd(), source);
  const where = abs === source ? source : `${source} (${abs})`;
  switch ((cause as NodeJS.ErrnoException).code) {
    case "ENOENT":
      return `${where}: no such file; expected ${expected}`;
    case "EISDIR":
      return `${where} is a directory; expected ${expected}`;
    case "EACCES":
    case "EPERM":
      return `${where}: permission denied; expected ${expected} you can read`;
    default:
      return `${where}: ${(cause as Error).message}; expected ${expected}`;
  }
}

export async function readJsonInput<T>(io: Io, source: string, schema: z.ZodType<T>, what: string, example: string): Promise<T> {
  let text: string;
  try {
    text = await readInputText(io, source);
  } catch (cause) {
    throw new CairnError("USAGE", `cannot read ${what}: ${unreadableInput(io, source, cause, `a JSON file such as ${example}, or - for stdin`)}`, { cause });
  }
  let raw: unknown;
  try {
    raw = parseJson(text);
  } catch (cause) {
    throw new CairnError("USAGE", `${source === "-" ? "stdin" : source} is not valid JSON: ${(cause as Error).message}; expected ${example}`, { cause });
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.slice(0, 5).map((i) => `  ${i.path.join(".") || "(top level)"}: ${i.message}`).join("\n");
    throw new CairnError("USAGE", `${source === "-" ? "stdin" : source} is not valid ${what}:\n${problems}\nexpected ${example}`);
  }
  return parsed.data;
}

/** All of this process's standard input, as bytes. */
export async function readStdinBytes(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
