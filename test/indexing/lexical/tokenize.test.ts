import { describe, expect, it } from "vitest";
import { isPhrase, isShingle, splitIdentifier, tokenize } from "../../../src/indexing/lexical/index.js";

/** Terms without shingles and phrases, for assertions about words. */
const words = (text: string): string[] => tokenize(text).filter((t) => !isShingle(t) && !isPhrase(t));

describe("splitIdentifier", () => {
  it("splits snake_case, camelCase, PascalCase, acronyms and digits, and canonicalises the whole", () => {
    expect(splitIdentifier("unnecessary_sort_by")).toEqual({
      whole: "unnecessary_sort_by",
      segments: ["unnecessary", "sort", "by"],
      parts: ["unnecessary", "sort", "by"],
    });
    expect(splitIdentifier("sortBy").whole).toBe("sort_by");
    expect(splitIdentifier("HTTPServer2")).toEqual({
      whole: "http_server2",
      segments: ["http", "server2"],
      parts: ["http", "server2", "server", "2"],
    });
    expect(splitIdentifier("1u32").parts).toEqual(["1", "u32", "u", "32"]);
    expect(splitIdentifier("parseJSONValue").segments).toEqual(["parse", "json", "value"]);
    expect(splitIdentifier("__init__").whole).toBe("init");
    expect(splitIdentifier("kebab-case-name").segments).toEqual(["kebab", "case", "name"]);
  });
});

describe("tokenize: identifiers", () => {
  it("keeps the whole identifier and adds its (stemmed) parts", () => {
    const terms = words("`getUserName`");
    expect(terms).toContain("get_user_name");
    expect(terms).toEqual(expect.arrayContaining(["get", "user", "name", "get_user", "user_name"]));
  });

  it("makes camelCase and snake_case spellings meet on the same whole term", () => {
    expect(tokenize("`sortBy`")).toContain("sort_by");
    expect(tokenize("`sort_by`")).toContain("sort_by");
  });

  it("links member and path chains in code: a::b, a.b(), a->b", () => {
    const terms = tokenize("let n = std::mem::swap(a, b); x.iter().count(); p->next;");
    expect(terms).toEqual(expect.arrayContaining(["std.mem", "mem.swap", "iter.count", "p.next"]));
  });

  it("marks macro calls in code", () => {
    expect(tokenize("let v = vec![1, 2];")).toContain("vec!");
    expect(tokenize("println!(\"hi\");")).toContain("println!");
  });

  it("joins kebab-case words in prose onto the snake_case whole", () => {
    const terms = words("Pass the --dry-run flag");
    expect(terms).toEqual(expect.arrayContaining(["dry_run", "dry", "run"]));
  });
});

describe("tokenize: code and prose", () => {
  it("indexes meaningful operators in code but not sentence punctuation in prose", () => {
    const code = tokenize("if a != b && c <= d { return x?; }");
    expect(code).toEqual(expect.arrayContaining(["!=", "&&", "<=", "?"]));
    expect(tokenize("Why is this bad? Because it panics!")).not.toContain("?");
  });

  it("recognises &mut and keeps code keywords that are English stopwords", () => {
    const terms = tokenize("for (_, v) in &mut m { let y = v as i64; }");
    expect(terms).toEqual(expect.arrayContaining(["&mut", "for", "in", "as", "i64"]));
  });

  it("drops English stopwords from prose only", () => {
    expect(words("the value is cast as an integer")).toEqual(["valu", "cast", "integ"]);
    expect(tokenize("`x as u8`")).toContain("as");
  });

  it("emits shingles of adjacent code lexemes and phrases of adjacent prose words", () => {
    expect(tokenize("x.unwrap();")).toEqual(expect.arrayContaining([". unwrap", "unwrap (", ") ;"]));
    expect(tokenize("heat transfer in the boundary layer")).toEqual(
      expect.arrayContaining(["heat~transfer", "boundari~layer"]),
    );
    expect(tokenize("heat transfer").some(isShingle)).toBe(false);
  });

  it("stems English words with Porter", () => {
    expect(words("connections connected connecting")).toEqual(["connect", "connect", "connect"]);
  });
});

describe("tokenize: paths, numbers, line endings, unicode", () => {
  it("keeps a path whole, its file name, and its words", () => {
    const terms = words("see src/indexing/search-index.ts:47 for details");
    expect(terms).toEqual(expect.arrayContaining(["src/indexing/search-index.ts", "search-index.ts", "search_index", "ts", "47"]));
    expect(words("./lib/a.js")).toContain("lib/a.js");
  });

  it("keeps decimals and versions whole and splits literal suffixes", () => {
    expect(words("Mach 3.5 in version 1.2.3")).toEqual(expect.arrayContaining(["3.5", "1.2.3"]));
    expect(words("`let x = 1u32;`")).toEqual(expect.arrayContaining(["1u32", "1", "u32", "32"]));
  });

  it("treats CRLF, CR and LF the same", () => {
    const lf = tokenize("fn main() {\n    let x = 1;\n}\nSome prose here");
    expect(tokenize("fn main() {\r\n    let x = 1;\r\n}\r\nSome prose here")).toEqual(lf);
    expect(tokenize("fn main() {\r    let x = 1;\r}\rSome prose here")).toEqual(lf);
  });

  it("lowercases and NFKC-normalises unicode, keeping non-Latin words", () => {
    expect(words("Ｆｕｌｌｗｉｄｔｈ")).toEqual(["fullwidth"]);
    expect(words("Überprüfung der Größe")).toEqual(expect.arrayContaining(["überprüfung", "der", "größe"]));
    expect(words("значение 変数")).toEqual(["значение", "変数"]);
    expect(words("café")).toEqual(words("cafe\u0301"));
  });

  it("returns nothing for empty or whitespace-only text", () => {
    expect(tokenize("")).toEqual([]);
    expect(tokenize(" \n\t ")).toEqual([]);
  });

  it("drops single letters, which are variable names or articles", () => {
    expect(words("let x = a + b;")).toEqual(["let"]);
  });
});
