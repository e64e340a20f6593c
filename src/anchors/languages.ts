/**
 * Definition patterns per language: which lines *define* a name (not merely mention it).
 * Line-based and deliberately small — a function, class, type, method or heading is found where
 * people write it; exotic forms (macros generating functions, `export { a as b }`) are not.
 */

export type Language = "typescript" | "python" | "go" | "rust" | "java" | "shell" | "markdown";

/** How a definition's extent is found: matching braces, indentation, or the next heading. */
export type BlockStyle = "braces" | "shell-braces" | "indent" | "heading";

/** A definition found on one line; its end line is computed on demand (see blocks.ts). */
export type DefinitionStart = {
  name: string;
  /** 0-based line index. */
  line: number;
  /** An explicit container written on the line: a Go receiver, `Server.prototype.listen`, a Rust `impl Foo`. */
  container?: string;
  /** A markdown heading's level (1-6). */
  level?: number;
};

const EXTENSIONS: Record<string, Language> = {};
for (const [language, exts] of [
  ["typescript", "ts tsx mts cts js jsx mjs cjs"],
  ["python", "py pyi"],
  ["go", "go"],
  ["rust", "rs"],
  ["java", "java"],
  ["shell", "sh bash zsh ksh"],
  ["markdown", "md mdx markdown"],
] as const) {
  for (const ext of exts.split(" ")) EXTENSIONS[ext] = language;
}

/** The languages with definition patterns, by file extension (README "Anchors" lists them). */
export function languageOf(file: string): Language | undefined {
  const ext = /\.([A-Za-z0-9]+)$/.exec(file)?.[1]?.toLowerCase();
  return ext === undefined ? undefined : EXTENSIONS[ext];
}

export function blockStyle(language: Language): BlockStyle {
  switch (language) {
    case "python":
      return "indent";
    case "markdown":
      return "heading";
    case "shell":
      return "shell-braces";
    default:
      return "braces";
  }
}

const ID = "[A-Za-z_$][\\w$]*";

// No two adjacent quantifiers below may match the same characters (`\s*\*?\s*` did): on a long line of
// spaces that backtracks quadratically (a 200 KB line took a minute); test/anchors/hostile.test.ts.

const TS_FUNCTION = new RegExp(`^\\s*(?:export\\s+)?(?:default\\s+)?(?:declare\\s+)?(?:async\\s+)?function\\b\\s*(?:\\*\\s*)?(${ID})`);
const TS_TYPE = new RegExp(`^\\s*(?:export\\s+)?(?:default\\s+)?(?:declare\\s+)?(?:abstract\\s+)?(?:const\\s+)?(?:class|interface|type|enum|namespace|module)\\s+(${ID})`);
const TS_VARIABLE = new RegExp(`^\\s*(?:export\\s+)?(?:declare\\s+)?(?:const|let|var)\\s+(${ID})`);
const TS_MEMBER_ASSIGN = new RegExp(`^\\s*((?:${ID}\\.)+)(${ID})\\s*=(?![=>])`);
const TS_PROPERTY_FN = new RegExp(`^\\s*(?:(?:public|private|protected|static|readonly|override)\\s+)*(#?${ID})\\s*[:=]\\s*(?:async\\s+)?(?:function\\b|\\(|${ID}\\s*=>)`);
const TS_METHOD = new RegExp(`^\\s*(?:(?:public|private|protected|static|readonly|async|override|abstract|declare|get|set|accessor)\\s+)*(?:\\*\\s*)?(#?${ID})\\s*(?:<[^>(]*>\\s*)?\\(`);
const NOT_METHODS = new Set(
  "if for while switch catch return new await typeof delete void else do try super this import export function throw yield case in of instanceof with".split(" "),
);

const PY_DEF = /^(\s*)(?:async\s+)?def\s+([A-Za-z_]\w*)/;
const PY_CLASS = /^(\s*)class\s+([A-Za-z_]\w*)/;
const PY_ASSIGN = /^([A-Za-z_]\w*)\s*(?::[^=]*)?=(?!=)/;

const GO_METHOD = /^func\s*\(\s*(?:\w+\s+)?(?:\*\s*)?(\w+)(?:\[[^\]]*\])?\s*\)\s*(\w+)/;
const GO_FUNC = /^func\s+(\w+)/;
const GO_DECL = /^(?:type|var|const)\s+(\w+)/;
const GO_GROUP = /^(?:type|var|const)\s*\(\s*$/;
const GO_GROUP_ITEM = /^\s+(\w+)\b/;

const RS_FN = /^\s*(?:pub(?:\([^)]*\))?\s+)?(?:default\s+)?(?:(?:const|async|unsafe|extern(?:\s+"[^"]*")?)\s+)*fn\s+(\w+)/;
const RS_ITEM = /^\s*(?:pub(?:\([^)]*\))?\s+)?(?:unsafe\s+)?(?:struct|enum|union|trait|type|mod|static|const)\s+(?:mut\s+)?(\w+)/;
const RS_MACRO = /^\s*macro_rules!\s*(\w+)/;
const RS_IMPL = /^\s*(?:unsafe\s+)?impl(?:\s*<[^>]*>)?\s+(?:[\w:]+(?:<[^>]*>)?\s+for\s+)?(?:\w+::)*(\w+)/;

const JAVA_TYPE = /^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|protected|private|static|final|abstract|sealed|non-sealed|strictfp)\s+)*(?:class|interface|enum|record|@interface)\s+(\w+)/;
const JAVA_METHOD =
  /^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|protected|private|static|final|abstract|synchronized|native|default|strictfp)\s+)*(?:<[^>]+>\s+)?(?:([\w$]+(?:<[^>]*>)?(?:\[\])*(?:\.[\w$]+)*)\s+)?([\w$]+)\s*\(/;
const JAVA_NOT_TYPES = new Set("return new throw else case yield await assert".split(" "));

const SH_FUNC = /^\s*(?:function\s+)?([A-Za-z_][\w.:-]*)\s*\(\s*\)/;
const SH_FUNC_KEYWORD = /^\s*function\s+([A-Za-z_][\w.:-]*)/;

const MD_HEADING = /^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;
const FENCE = /^ {0,3}(?:```|~~~)/;

/** Every definition start in `lines` (0-based line indexes), in order. */
export function scanDefinitions(lines: readonly string[], language: Language): DefinitionStart[] {
  switch (language) {
    case "typescript":
      return scanTypescript(lines);
    case "python":
      return scanWith(lines, (line) => {
        const m = PY_DEF.exec(line) ?? PY_CLASS.exec(line);
        if (m) return { name: m[2]! };
        const a = PY_ASSIGN.exec(line);
        return a ? { name: a[1]! } : undefined;
      });
    case "go":
      return scanGo(lines);
    case "rust":
      return scanWith(lines, (line) => {
        const m = RS_FN.exec(line) ?? RS_MACRO.exec(line) ?? RS_ITEM.exec(line);
        if (m) return { name: m[1]! };
        const impl = RS_IMPL.exec(line);
        return impl ? { name: impl[1]! } : undefined;
      });
    case "java":
      return scanJava(lines);
    case "shell":
      return scanWith(lines, (line) => {
        const m = SH_FUNC.exec(line) ?? SH_FUNC_KEYWORD.exec(line);
        return m ? { name: m[1]! } : undefined;
      });
    case "markdown":
      return scanMarkdown(lines);
  }
}

function scanWith(lines: readonly string[], match: (line: string) => Omit<DefinitionStart, "line"> | undefined): DefinitionStart[] {
  const out: DefinitionStart[] = [];
  for (let i = 0; i < lines.length; i++) {
    const found = match(lines[i]!);
    if (found) out.push({ ...found, line: i });
  }
  return out;
}

function scanTypescript(lines: readonly string[]): DefinitionStart[] {
  return scanWith(lines, (line) => {
    if (/^\s*(?:\/\/|\*|\/\*)/.test(line)) return undefined;
    const m = TS_FUNCTION.exec(line) ?? TS_TYPE.exec(line) ?? TS_VARIABLE.exec(line);
    if (m) return { name: m[1]! };
    const member = TS_MEMBER_ASSIGN.exec(line);
    if (member) {
      const chain = member[1]!.split(".").filter((p) => p && p !== "prototype");
      if (chain[0] === "this") return undefined;
      const container = chain[chain.length - 1];
      return container && container !== "exports" ? { name: member[2]!, container } : { name: member[2]! };
    }
    const property = TS_PROPERTY_FN.exec(line);
    if (property && /=>|\bfunction\b/.test(line)) return { name: property[1]!.replace(/^#/, "") };
    return undefined;
  }).concat(scanMethods(lines));
}

/** `name(args) {` / `name(args): T {` inside a class or object: a method, told from a call by what follows `)`. */
function scanMethods(lines: readonly string[]): DefinitionStart[] {
  const out: DefinitionStart[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const m = TS_METHOD.exec(line);
    if (!m || NOT_METHODS.has(m[1]!) || TS_FUNCTION.test(line) || TS_VARIABLE.test(line)) continue;
    if (followedByBody(lines, i, m[0].length - 1, [":", "{"])) out.push({ name: m[1]!.replace(/^#/, ""), line: i });
  }
  return out.sort((a, b) => a.line - b.line);
}

function scanGo(lines: readonly string[]): DefinitionStart[] {
  const out: DefinitionStart[] = [];
  let group = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (group) {
      if (/^\)/.test(line)) group = false;
      else {
        const item = GO_GROUP_ITEM.exec(line);
        if (item && !/^\s*\/\//.test(line)) out.push({ name: item[1]!, line: i });
      }
      continue;
    }
    if (GO_GROUP.test(line)) {
      group = true;
      continue;
    }
    const method = GO_METHOD.exec(line);
    if (method) {
      out.push({ name: method[2]!, container: method[1]!, line: i });
      continue;
    }
    const m = GO_FUNC.exec(line) ?? GO_DECL.exec(line);
    if (m) out.push({ name: m[1]!, line: i });
  }
  return out;
}

function scanJava(lines: readonly string[]): DefinitionStart[] {
  const out: DefinitionStart[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^\s*(?:\/\/|\*|\/\*)/.test(line)) continue;
    const type = JAVA_TYPE.exec(line);
    if (type) {
      out.push({ name: type[1]!, line: i });
      continue;
    }
    const m = JAVA_METHOD.exec(line);
    if (!m) continue;
    const returnType = m[1];
    if (returnType !== undefined && JAVA_NOT_TYPES.has(returnType)) continue;
    if (NOT_METHODS.has(m[2]!)) continue;
    // With a return type, an abstract/interface method ends in `;`; without one (a constructor) a body must follow.
    if (followedByBody(lines, i, m[0].length - 1, returnType === undefined ? ["{"] : ["{", ";", "t"])) out.push({ name: m[2]!, line: i });
  }
  return out;
}

function scanMarkdown(lines: readonly string[]): DefinitionStart[] {
  const out: DefinitionStart[] = [];
  let fence = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (FENCE.test(line)) fence = !fence;
    if (fence) continue;
    const m = MD_HEADING.exec(line);
    if (m && m[2]!.trim()) out.push({ name: m[2]!.trim(), line: i, level: m[1]!.length });
  }
  return out;
}

/**
 * From the `(` at `lines[i][col]`, skip to its matching `)` (up to 30 lines) and tell whether the
 * next non-space character is one of `next` (`t` stands for Java's `throws`).
 */
function followedByBody(lines: readonly string[], i: number, col: number, next: string[]): boolean {
  let depth = 0;
  for (let l = i; l < lines.length && l < i + 30; l++) {
    const text = lines[l]!;
    for (let c = l === i ? col : 0; c < text.length; c++) {
      const ch = text[c]!;
      if (ch === "(") depth++;
      else if (ch === ")" && --depth === 0) return nextIs(lines, l, c + 1, next);
    }
  }
  return false;
}

function nextIs(lines: readonly string[], l: number, c: number, next: string[]): boolean {
  for (let line = l; line < lines.length && line < l + 3; line++) {
    const rest = lines[line]!.slice(line === l ? c : 0).trimStart();
    if (!rest) continue;
    if (next.includes("t") && /^throws\b/.test(rest)) return true;
    return next.includes(rest[0]!);
  }
  return false;
}

/** GitHub's heading slug: lower case, punctuation dropped, spaces to `-`. */
export function slug(text: string): string {
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}
