/** Read JSON input for record/compound from a file or stdin ('-'), validated with clear errors. */
import { readFile } from "node:fs/promises";
import path from "node:path";
import type * as z from "zod";
import { CairnError } from "../errors.js";
import type { Io } from "./output.js";
import { parseJson } from "../text/json.js";

/** A file argument's text: '-' is standard input; a relative path resolves against the command's working directory. */
export function readInputText(io: Io, source: string): Promise<string> {
  return source === "-" ? (io.stdin ?? readStdin)() : readFile(path.resolve(io.cwd ?? process.cwd(), source), "utf8");
}

export async function readJsonInput<T>(io: Io, source: string, schema: z.ZodType<T>, what: string, example: string): Promise<T> {
  let text: string;
  try {
    text = await readInputText(io, source);
  } catch (cause) {
    throw new CairnError("USAGE", `cannot read ${what} from ${source}: ${(cause as Error).message}`, { cause });
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
