/**
 * JSON read from a file a person wrote (a findings file, cairn.config.json, `new --from`): on a syntax error, say
 * where (line and column) and what was expected, and that comments and trailing commas are not JSON — which
 * `JSON.parse` only says as "at position 126", or not at all. The first error is located by jsonc-parser (the
 * scanner VS Code uses) in strict mode; valid input never reaches it.
 */
import { parse, type ParseError, ParseErrorCode } from "jsonc-parser";

const EXPECTED: Partial<Record<ParseErrorCode, string>> = {
  [ParseErrorCode.InvalidSymbol]: "a JSON value (a string in double quotes, a number, true, false, null, an object or a list)",
  [ParseErrorCode.InvalidNumberFormat]: "a number",
  [ParseErrorCode.PropertyNameExpected]: "a property name in double quotes",
  [ParseErrorCode.ValueExpected]: "a value",
  [ParseErrorCode.ColonExpected]: "a colon after the property name",
  [ParseErrorCode.CommaExpected]: "a comma between the items",
  [ParseErrorCode.CloseBraceExpected]: "a closing }",
  [ParseErrorCode.CloseBracketExpected]: "a closing ]",
  [ParseErrorCode.EndOfFileExpected]: "the end of the file after the value",
  [ParseErrorCode.InvalidCommentToken]: "no comment: comments are not allowed in JSON",
  [ParseErrorCode.UnexpectedEndOfComment]: "no comment: comments are not allowed in JSON",
  [ParseErrorCode.UnexpectedEndOfString]: "a closing double quote",
  [ParseErrorCode.UnexpectedEndOfNumber]: "more digits",
  [ParseErrorCode.InvalidUnicode]: "a \\uXXXX escape with four hex digits",
  [ParseErrorCode.InvalidEscapeCharacter]: "a valid escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)",
  [ParseErrorCode.InvalidCharacter]: "no control character inside a string (write \\n, \\t)",
};

/** Where and why `text` is not JSON, e.g. "line 4, column 3: expected a comma between the items"; undefined when it is JSON. */
export function jsonSyntaxError(text: string): string | undefined {
  const errors: ParseError[] = [];
  try {
    parse(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  } catch (error) {
    // The scanner recurses per nesting level: a hostile `[[[[…` a million deep exhausts the stack.
    if (error instanceof RangeError) return "it is nested too deeply to read (lists or objects inside each other thousands of levels deep)";
    throw error;
  }
  const first = errors[0];
  if (!first) return undefined;
  const before = text.slice(0, first.offset);
  const line = before.split("\n").length;
  const column = first.offset - (before.lastIndexOf("\n") + 1) + 1;
  if (!text.trim()) return "the file is empty; expected a JSON value";
  // A comma right before the closing bracket or brace: a trailing comma, which JSON does not allow.
  const trailing = /,\s*$/.test(before) && /^[}\]]/.test(text.slice(first.offset));
  const expected = trailing ? "no comma before the closing bracket: trailing commas are not allowed in JSON" : (EXPECTED[first.error] ?? "valid JSON");
  return `line ${line}, column ${column}: expected ${expected}`;
}

/** `JSON.parse(text)`, or a thrown Error whose message is `jsonSyntaxError`'s (the caller names the file). */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new Error(jsonSyntaxError(text) ?? (cause as Error).message, { cause });
  }
}
