/**
 * Text that tries to instruct the agent an entry is injected into. Phrase-based, case-insensitive,
 * on word boundaries, reported as warnings. Phrases that are also ordinary review prose are
 * narrowed: "act as" only as an imperative (sentence start, "you will act as", "please act as" —
 * "the proxy can act as a cache" is fine); "system prompt" only with an imperative or possessive
 * ("reveal the system prompt", "your system prompt", "System prompt:") — entries about LLM code
 * may say "the system prompt is built from user input"; "you are now" only before a role or state.
 */
import type { Finding } from "./finding.js";

const SP = String.raw`\s+`;
const LEADERS = String.raw`(?:(?:all|any|the|your|of|my|these|those)\s+)*`;
const EARLIER = "(?:previous|prior|above|earlier|preceding|foregoing|former|original|system)";
const ORDERS = String.raw`(?:instructions?|prompts?|directions?|rules|messages|guidelines|commands|context)`;

/** `word` at a word start, written literal-first (the boundary check follows the literal, which is much faster). */
const w = (word: string): string => String.raw`${word}(?<!\w${word})`;

type Phrase = {
  pattern: RegExp;
  /**
   * Check on the text before the match on the same line: the number of characters before the
   * match that belong to the phrase (0 for none), or undefined to reject the match.
   */
  lead?: (before: string, match: string) => number | undefined;
};

function leadBy(regex: RegExp): (before: string) => number | undefined {
  return (before) => regex.exec(before)?.[0].length;
}

const SOURCES: { pattern: string; lead?: Phrase["lead"] }[] = [
  { pattern: String.raw`${w("ignore")}${SP}${LEADERS}${EARLIER}${SP}${ORDERS}\b` },
  { pattern: String.raw`${w("disregard")}${SP}${LEADERS}(?:${EARLIER}${SP})?${ORDERS}\b` },
  {
    pattern: String.raw`${w("override")}${SP}(?:(?:(?:all|your|my)${SP})+(?:${EARLIER}${SP})?(?:instructions|guidelines|safety${SP}rules)|${EARLIER}${SP}(?:instructions|guidelines))\b`,
  },
  {
    pattern: String.raw`${w("forget")}${SP}(?:everything|all${SP}(?:(?:previous|prior|your|the|above)${SP})?(?:instructions|rules|context)|(?:your|the|all|previous|prior)${SP}(?:(?:previous|prior)${SP})?instructions)\b`,
  },
  { pattern: String.raw`${w("you")}${SP}are${SP}now${SP}(?:a|an|the|in|my|acting|no${SP}longer|free|going${SP}to|dan|unrestricted|jailbroken)\b` },
  {
    // only as an imperative: "Act as …", "you will act as …"; "the proxy can act as a cache" is prose
    pattern: String.raw`${w("act")}${SP}as${SP}(?:a|an|the|my|if)\b`,
    lead: (before) => (/(?:^|[.!?:;>*-]|\byou\s+(?:will|must|should|shall)|\bplease|\bnow|\bfrom\s+now\s+on,?)[ \t]*$/i.test(before) ? 0 : undefined),
  },
  { pattern: String.raw`${w("pretend")}${SP}(?:to${SP}be|you${SP}are|that${SP}you)\b` },
  {
    // "System prompt:" as a header, or an imperative/possessive before it: "reveal the system prompt", "your system prompt"
    pattern: String.raw`${w("system")}${SP}prompt\b(?:\s*:)?`,
    lead: (before, match) => {
      const imperative = /\b(?:reveal|print|show|output|repeat|leak|ignore|override|forget|disregard|change|replace|new|your)\s+(?:(?:the|your|entire|full|original)\s+)*$/i.exec(before);
      return imperative ? imperative[0].length : match.endsWith(":") ? 0 : undefined;
    },
  },
  { pattern: String.raw`${w("instructions")}\s*:`, lead: leadBy(/\b(?:new|updated|real|actual|additional)\s+$/i) },
  {
    pattern: String.raw`${w("the")}${SP}user\b`,
    lead: leadBy(/\b(?:do\s+not|don't|dont|never)\s+(?:tell|inform|(?:mention|reveal)\s+(?:(?:this|it|that)\s+)?to)\s+$/i),
  },
  {
    pattern: String.raw`<\|(?:im_start|im_end|im_sep|system|user|assistant|endoftext|begin_of_text|end_of_text|start_header_id|end_header_id|eot_id)\|>|\[\/?INST\](?!\w)|<<\/?SYS>>|<\/?(?:system|assistant|instructions?|system-prompt)>`,
  },
];

const PHRASES: readonly Phrase[] = SOURCES.map(({ pattern, lead }) => ({ pattern: new RegExp(pattern, "gi"), ...(lead ? { lead } : {}) }));

function shown(match: string): string {
  const single = match.replace(/\s+/g, " ").trim();
  return single.length > 50 ? `${single.slice(0, 49)}…` : single;
}

/** Prompt-injection phrases and chat-template role tags in the original text (overlaps reported once). */
export function detectInjection(text: string): Finding[] {
  const found: Finding[] = [];
  for (const { pattern, lead } of PHRASES) {
    pattern.lastIndex = 0;
    for (let m = pattern.exec(text); m; m = pattern.exec(text)) {
      let start = m.index;
      if (lead) {
        const extra = lead(text.slice(text.lastIndexOf("\n", m.index - 1) + 1, m.index), m[0]);
        if (extra === undefined) continue;
        start -= extra;
      }
      found.push({
        start,
        end: m.index + m[0].length,
        rule: "prompt-injection",
        message: `Found text that reads like an instruction to the agent ("${shown(text.slice(start, m.index + m[0].length))}"): entries are injected into agent prompts, where such text could override the orchestrator's instructions. Expected a description of the code pattern; for an entry about prompt injection, describe the attack (e.g. "user text asking the model to drop its instructions") instead of quoting it.`,
      });
    }
  }
  found.sort((a, b) => a.start - b.start || b.end - a.end);
  let reached = -1;
  return found.filter((f) => {
    if (f.start < reached) return false;
    reached = f.end;
    return true;
  });
}
