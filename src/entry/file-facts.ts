/**
 * What is known of an entry file without parsing it: its size limit and today's date for its date rules.
 * Kept apart from parse.ts, which loads the YAML parser: most commands never parse an entry (the catalogue
 * holds what they read), and importing one of these must not cost them the parser's start-up.
 */

/** Entries are small; larger files are refused unparsed. */
export const MAX_ENTRY_BYTES = 1024 * 1024;

export function todayUtc(now: Date = new Date()): string {
  return now.toISOString().slice(0, 10);
}
