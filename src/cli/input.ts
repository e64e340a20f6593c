/** Read JSON input for record/compound from a file or stdin ('-'), validated with clear errors. */
import { readFile } from "node:fs/promises";
import path from "node:path";
import type * as z from "zod";
import { CairnError } from "../errors.js";
import type { Io } from "./output.js";
import { parseJson } from "../text/json.js";

/**
 * A file argument's text: '-' is standard input; a relative path resolves against the command's working directory. A
 * leading BOM (as Windows editors write) is dropped, as for cairn.config.json and `new --from`.
 */
export async function readInputText(io: Io, source: string): Promise<string> {
  const text = source === "-" ? await (io.stdin ?? readStdin)() : await readFile(path.resolve(io.cwd ?? process.cwd(), source), "utf8");
  return text.replace(/^\uFEFF/, "");
}

/**
 * Why a file argument could not be read, in words and with what was expected (`no such file`, `is a directory`),
 * instead of Node's `ENOENT: no such file or directory, open '/abs/path'`.
 */
export function unreadableInput(io: Io, source: string, cause: unknown, expected: string): string {
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

/** All of standard input as UTF-8 text. */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
