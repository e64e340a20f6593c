// Preload (node --import) that records every module URL resolved, to the file named by CAIRN_TRACE_IMPORTS.
import { register } from "node:module";

register(
  "data:text/javascript," +
    encodeURIComponent(`
import { appendFileSync } from "node:fs";
const file = process.env.CAIRN_TRACE_IMPORTS;
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  if (file) appendFileSync(file, result.url + "\\n");
  return result;
}`),
  import.meta.url,
);
