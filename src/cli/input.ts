/** Read JSON input for record/compound from a file or stdin ('-'), validated with clear errors. */
import { readFile } from "node:fs/promises";
import type * as z from "zod";
import { CairnError } from "../errors.js";

export async function readJsonInput<T>(source: string, schema: z.ZodType<T>, what: string, example: string): Promise<T> {
  let text: string;
  try {
    text = source === "-" ? await readStdin() : await readFile(source, "utf8");
  } catch (cause) {
    throw new CairnError("USAGE", `cannot read ${what} from ${source}: ${(cause as Error).message}`, { cause });
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (cause) {
    throw new CairnError("USAGE", `${source === "-" ? "stdin" : source} is not valid JSON (${(cause as Error).message}); expected ${example}`, { cause });
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
