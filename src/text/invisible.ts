/**
 * Characters that are not shown as themselves, as regular-expression class contents (one list, so that what a prompt
 * drops, what the sanitizer reads through and what a terminal is shown spelled out stay the same set).
 */

/** C0 and C1 control characters: a terminal acts on them (escape sequences, carriage returns) instead of showing them. */
export const CONTROL_CHARS = "\\u0000-\\u001f\\u007f-\\u009f";

/**
 * Format characters that hide text or reorder it: the soft hyphen, bidi marks and overrides, zero-width spaces and
 * joiners, invisible operators, variation selectors, the byte-order mark, interlinear annotation marks, and the Unicode
 * tag characters. A model reads a tag character as the ASCII letter it shadows (U+E0041 is a hidden `A`), and a run of
 * variation selectors can carry bytes: both are invisible in an editor, in `git diff` and in a terminal.
 * Astral ranges: a regular expression built from this list needs the `u` flag.
 */
export const HIDDEN_CHARS =
  "\\u00ad\\u061c\\u180e\\u200b-\\u200f\\u202a-\\u202e\\u2060-\\u2064\\u2066-\\u206f\\ufe00-\\ufe0f\\ufeff\\ufff9-\\ufffb\\u{e0000}-\\u{e007f}\\u{e0100}-\\u{e01ef}";
