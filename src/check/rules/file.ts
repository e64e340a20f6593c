/** Rules the reader and parser report while reading a file: when one fires, there is no entry at all. */
import { type RuleModule, rulesOf } from "./types.js";

export const fileRules: RuleModule = {
  name: "file",
  rules: [
    ...rulesOf("file", { gate: true, fatal: true }, [
      ["file-too-large", "error", "file over 1 MB: not parsed"],
      ["file-empty", "error", "an empty file"],
      ["file-binary", "error", "file with NUL bytes (binary)"],
      ["encoding-invalid", "error", "file that is not valid UTF-8"],
      ["file-unreadable", "error", "file that cannot be read"],
      ["not-a-file", "error", "entry path that is not a regular file"],
      ["symlink-outside", "error", "symbolic link leaving the knowledge directory"],
      ["entry-symlink", "error", "entry file that is a symbolic link (git stores the link, so no diff shows the text a prompt gets)"],
    ]),
    ...rulesOf("frontmatter", { gate: true, fatal: true }, [
      ["frontmatter-missing", "error", "no `---` line opening YAML frontmatter"],
      ["frontmatter-unterminated", "error", "frontmatter never closed by a second `---`"],
      ["yaml-invalid", "error", "invalid YAML (at its line)"],
      ["frontmatter-not-mapping", "error", "frontmatter that is a list or a scalar, not a mapping"],
    ]),
  ],
};
