/**
 * Copies of strings that share no memory with the text they were cut from. V8 keeps a substring of 13
 * characters or more as a view of its whole parent string, so a value kept for long (a catalogue record, a
 * memo's key) that was sliced from an entry file's text, a code region or a query holds all of it.
 */

/** `text` as a string of its own (short strings are copies already). */
export function ownString(text: string): string {
  return text.length < 13 ? text : (JSON.parse(JSON.stringify(text)) as string);
}

/** A deep copy of plain parsed data (strings, arrays, plain objects) whose strings are their own. */
export function owned<T>(value: T): T {
  if (typeof value === "string") return ownString(value) as T;
  if (Array.isArray(value)) return value.map(owned) as T;
  if (value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    const copy: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) copy[key] = owned(v);
    return copy as T;
  }
  return value;
}
