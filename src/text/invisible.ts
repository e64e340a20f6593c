/**
 * Characters that are not shown as themselves, as regular-expression class contents (one list, so that what a prompt
 * drops, what the sanitizer reads through and what a terminal is shown spelled out stay the same set).
 */

/** C0 and C1 control characters: a terminal acts on them (escape sequences, carriage returns) instead of showing them. */
export const CONTROL_CHARS = "\\u0000-\\u001f\\u007f-\\u009f";

/**
 * Characters that hide text or reorder it: every Unicode default-ignorable code point (the soft hyphen, zero-width
 * spaces and joiners, bidi marks and overrides, invisible operators, variation selectors, the byte-order mark, Hangul
 * fillers, the combining grapheme joiner, Mongolian selectors, the Unicode tag characters…), the Arabic letter mark,
 * the Mongolian vowel separator and the interlinear annotation marks. A model reads a tag character as the ASCII
 * letter it shadows (U+E0041 is a hidden `A`), and a run of variation selectors can carry bytes: both are invisible
 * in an editor, in `git diff` and in a terminal. A property, not a list, so a range nobody listed is still in.
 * A regular expression built from this needs the `u` flag.
 */
export const HIDDEN_CHARS = "\\p{Default_Ignorable_Code_Point}\\u061c\\u180e\\ufff9-\\ufffb";
