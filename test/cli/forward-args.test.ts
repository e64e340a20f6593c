/** Which command lines the client hands to a running watcher, decided from the arguments alone (before commander loads). */
import { describe, expect, it } from "vitest";
import { FORWARDED_COMMANDS, forwardedCommand, readsStdin } from "../../src/cli/serve/protocol.js";

describe("forwardedCommand", () => {
  it("finds the command and --root in both forms", () => {
    expect(forwardedCommand(["status"])).toEqual({ name: "status" });
    expect(forwardedCommand(["--root", "../repo", "confirm", "x"])).toEqual({ name: "confirm", root: "../repo" });
    expect(forwardedCommand(["--root=/r", "inject", "--run", "r", "--agent", "a"])).toEqual({ name: "inject", root: "/r" });
  });

  it("leaves help, version, unknown global options and every other command to this process", () => {
    for (const argv of [[], ["--help"], ["-V"], ["--verbose", "status"], ["status", "--help"], ["show", "x", "-h"], ["status", "--root", "../b"], ["confirm", "x", "--root=../b"], ["check"], ["index"], ["new", "x"], ["init"], ["watch"], ["mcp"], ["lsp"], ["diff", "main"], ["report"], ["verify"]]) {
      expect({ argv, got: forwardedCommand(argv) }).toEqual({ argv, got: undefined });
    }
  });

  it("knows which arguments read standard input", () => {
    expect(readsStdin(["record", "--run", "r", "--findings", "-"])).toBe(true);
    expect(readsStdin(["inject", "--summary-file=-"])).toBe(true);
    expect(readsStdin(["inject", "--diff", "-", "--run", "r"])).toBe(true);
    expect(readsStdin(["record", "--findings", "f.json"])).toBe(false);
    expect(readsStdin(["search", "-"])).toBe(false);
  });

  it("forwards the lifecycle and search commands only", () => {
    expect([...FORWARDED_COMMANDS].sort()).toEqual(["compound", "confirm", "decay", "history", "inject", "record", "restore", "retract", "search", "set-status", "show", "status", "supersede"]);
  });
});
