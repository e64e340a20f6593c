import { describe, expect, it } from "vitest";
import { definitionsOf } from "../../src/anchors/definitions.js";

function find(file: string, text: string, symbol: string): Array<[number, number]> {
  const defs = definitionsOf(file, text.split("\n"));
  if (!defs) throw new Error(`no language for ${file}`);
  return defs.find(symbol).map((d) => [d.start, d.end]);
}

const TS = `import { x } from "y";

export function handleRequest(port: number): number {
  return port;
}

export class Server {
  #count = 0;
  listen(port: number): void {
    handleRequest(port);
    if (port) {
      this.close();
    }
  }

  async close() {
    return 1;
  }
}

const helper = (a: string) =>
  a.trim();

export type Mode = "a" | "b";
export interface Options {
  mode: Mode;
}
Server.prototype.reset = function () {
  return 0;
};
describe("x", () => {
  handleRequest(1);
});
`;

describe("definitions: TypeScript / JavaScript", () => {
  it.each([
    ["handleRequest", [[3, 5]]],
    ["Server", [[7, 19]]],
    ["Server.listen", [[9, 14]]],
    ["listen", [[9, 14]]],
    ["close", [[16, 18]]],
    ["helper", [[21, 22]]],
    ["Mode", [[24, 24]]],
    ["Options", [[25, 27]]],
    ["Server.reset", [[28, 30]]],
  ] as const)("%s", (symbol, expected) => {
    expect(find("src/server.ts", TS, symbol)).toEqual(expected);
  });

  it("a call site is not a definition", () => {
    expect(find("src/server.ts", TS, "describe")).toEqual([]);
    expect(find("src/a.js", "foo(1);\nfoo(\n  2,\n);\n", "foo")).toEqual([]);
  });
});

describe("definitions: other languages", () => {
  it("Python: def, class, methods by indentation, top-level assignments", () => {
    const py = ["import os", "", "class Store:", "    def open(self, path):", "        return os.open(path)", "", "    def close(self):", "        pass", "", "LIMIT = 10", "def load_config(", "    path,", "):", "    return open(path)", "", "print(load_config('x'))"].join("\n");
    expect(find("a/store.py", py, "Store")).toEqual([[3, 8]]);
    expect(find("a/store.py", py, "Store.open")).toEqual([[4, 5]]);
    expect(find("a/store.py", py, "LIMIT")).toEqual([[10, 10]]);
    expect(find("a/store.py", py, "load_config")).toEqual([[11, 14]]);
    expect(find("a/store.py", py, "print")).toEqual([]);
  });

  it("Go: functions, methods with receivers, types, grouped declarations", () => {
    const go = ["package api", "", "type Server struct {", "\tname string", "}", "", "func (s *Server) ServeHTTP(w http.ResponseWriter) {", "\tif s == nil {", "\t\treturn", "\t}", "}", "", "func New() *Server { return &Server{} }", "", "const (", "\tLimit = 3", ")"].join("\n");
    expect(find("api/users.go", go, "Server")).toEqual([[3, 5]]);
    expect(find("api/users.go", go, "Server.ServeHTTP")).toEqual([[7, 11]]);
    expect(find("api/users.go", go, "New")).toEqual([[13, 13]]);
    expect(find("api/users.go", go, "Limit")).toEqual([[16, 16]]);
  });

  it("Rust: fn inside impl, struct, lifetimes do not break brace matching", () => {
    const rs = ["pub struct Foo<'a> {", "    s: &'a str,", "}", "", "impl<'a> Foo<'a> {", "    pub fn new(s: &'a str) -> Foo<'a> {", "        let c = '{';", "        Foo { s }", "    }", "}", "", "fn new() {}"].join("\n");
    expect(find("src/lib.rs", rs, "Foo")).toEqual([[1, 3], [5, 10]]);
    expect(find("src/lib.rs", rs, "Foo::new")).toEqual([[6, 9]]);
    expect(find("src/lib.rs", rs, "new")).toEqual([[6, 9], [12, 12]]);
  });

  it("Java: classes, methods, constructors; not calls or returns", () => {
    const java = ["public class Repo {", "  private final Db db;", "  public Repo(Db db) {", "    this.db = db;", "  }", "  @Override", "  public List<User> findAll() throws IOException {", "    return db.query(\"x\");", "  }", "  abstract void run();", "}"].join("\n");
    expect(find("src/Repo.java", java, "Repo")).toEqual([[1, 11], [3, 5]]);
    expect(find("src/Repo.java", java, "Repo.findAll")).toEqual([[7, 9]]);
    expect(find("src/Repo.java", java, "run")).toEqual([[10, 10]]);
    expect(find("src/Repo.java", java, "query")).toEqual([]);
  });

  it("shell: name() { … } and function name", () => {
    const sh = ["#!/bin/bash", "sprint_create() {", "  local id", '  case "$1" in', "    a) echo a ;;", "  esac", "}", "function enforce_gate {", "  check_phase_gate \"$@\"", "}", "sprint_create x"].join("\n");
    expect(find("hooks/lib-sprint.sh", sh, "sprint_create")).toEqual([[2, 7]]);
    expect(find("hooks/lib-sprint.sh", sh, "enforce_gate")).toEqual([[8, 10]]);
    expect(find("hooks/lib-sprint.sh", sh, "check_phase_gate")).toEqual([]);
  });

  it("Markdown: headings by text or slug, to the next heading of the same level", () => {
    const md = ["# Guide", "", "## Deviation Rules", "", "- R1", "```", "# not a heading", "```", "### Detail", "x", "## Other", "y"].join("\n");
    expect(find("docs/guide.md", md, "deviation-rules")).toEqual([[3, 10]]);
    expect(find("docs/guide.md", md, "Deviation Rules")).toEqual([[3, 10]]);
    expect(find("docs/guide.md", md, "not-a-heading")).toEqual([]);
  });

  it("languages without patterns have no definitions object", () => {
    expect(definitionsOf("app/user.rb", ["def save", "end"])).toBeUndefined();
  });
});
