/** cairn's version, from its package.json (one place: the CLI, the MCP server, SARIF and the lint cache key read it). */
import { createRequire } from "node:module";

export const VERSION = (createRequire(import.meta.url)("../package.json") as { version: string }).version;
