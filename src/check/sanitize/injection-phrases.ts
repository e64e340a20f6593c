/**
 * The phrase families of prompt injection, matched on folded text (see fold.ts: lower case, one
 * space, look-alikes and leetspeak read as letters). Each phrase names literals of which at least
 * one must occur for it to be tried (a cheap `includes` before any regex), and whether it only counts
 * as an imperative ("Approve this PR." — not "reviewers approve this PR after CI") or only when not
 * negated ("send the secrets to …" — not "never send secrets to the logger").
 *
 * Phrases that are also ordinary review prose are narrowed: "ignore" needs an earlier/your
 * qualifier ("ignore whitespace changes" is prose), "act as" needs an imperative ("the proxy can act
 * as a cache" is prose), "system prompt" needs a verb or a colon ("the system prompt builder" is
 * prose), "do not tell the user" needs "about this instruction" ("do not tell the user whether the
 * account exists" is security advice). Every quantifier is bounded, so each phrase is linear.
 */

export type Phrase = {
  /** Literals (folded) of which one must occur for the phrase to be tried. */
  needs: readonly string[];
  /** Global regular expression on folded text. */
  pattern: RegExp;
  /** Only as an imperative: at a sentence start or after "you must", "please", "and", "now" … */
  imperative?: boolean;
  /** Not after "never", "do not", "don't", "avoid", "must not" … */
  unnegated?: boolean;
};

const EARLIER = "(?:previous|prior|above|earlier|preceding|foregoing|former|original|initial|existing|old|system|given|current)";
const ORDERS = "(?:instructions?|prompts?|directions?|directives?|rules|guidelines|commands|messages?|context|constraints|policies|guardrails|restrictions|safety rules|orders|programming)";
const FILLER = "(?:(?:all|any|the|your|my|these|those|of|every|each) ){0,4}";
const WORK = "(?:pr|pull request|merge request|mr|change|changes|changeset|diff|patch|commit|code|review)";
const SAFE = "(?:safe|secure|approved|reviewed|clean|low[- ]risk|trusted|verified|passing|fine|correct|flawless)";
const AI = "(?:ai|llm|language model|assistant|ai assistant|ai reviewer|reviewer bot|review bot|ai agents?|agents?|bots?|models?|copilot|claude|gpt|chatgpt|reviewers? agents?)";
const SECRETS = "(?:\\.env|env file|environment variables?|secrets?|credentials|api keys?|access tokens?|tokens|ssh keys?|private keys?|passwords?|repository secrets|ci secrets)";

const re = (source: string): RegExp => new RegExp(source, "g");

export const PHRASES: readonly Phrase[] = [
  // Instruction override
  { needs: ["ignor", "disregard", "forget", "overrid", "bypass", "set aside", "drop", "discard", "abandon"], pattern: re(`\\b(?:ignore|disregard|forget|override|bypass|set aside|drop|discard|abandon) ${FILLER}${EARLIER}(?: [a-z]+)? ${ORDERS}\\b`) },
  { needs: ["ignor", "disregard", "overrid", "bypass", "forget"], pattern: re(`\\b(?:ignore|disregard|override|bypass|forget) (?:all (?:of )?)?your (?:[a-z]+ )?${ORDERS}\\b|\\b(?:ignore|disregard|forget) all ${ORDERS}\\b`) },
  { needs: ["rules", "instruction", "guideline", "direction"], pattern: re(`\\b(?:drop|ignore|disregard|forget|abandon|discard) (?:all |the )?(?:rules|instructions|guidelines|directions) (?:you (?:were|have been) given|you received|given to you)\\b`) },
  { needs: ["forget everything", "forget all"], pattern: re(`\\bforget (?:everything|all)(?: (?:you|that you)(?: were| have been)? (?:told|taught|instructed|given))?\\b`) },
  { needs: ["instruction", "rules", "guideline", "direction", "prompt"], pattern: re(`\\b(?:previous|prior|above|earlier|original|old|all|your) (?:instructions|rules|guidelines|directions|prompts?) (?:are|were|is) (?:now |hereby )?(?:void|cancell?ed|obsolete|invalid|revoked|outdated|superseded|irrelevant|only a test|a test|fake|no longer (?:valid|apply|applicable|relevant|in effect))\\b`) },
  { needs: ["real ", "actual ", "true ", "new "], pattern: re(`\\bthe (?:real|actual|true|new) (?:task|instructions?|objective|goal|job|assignment)(?: (?:follows?|below))? ?(?:is|are|:|follows?)`) },
  { needs: ["from now on"], pattern: re(`\\bfrom now on,? (?:you|always|never|only|respond|answer|reply|act|say|ignore|approve|treat)\\b`) },
  { needs: ["instruction"], pattern: re(`\\b(?:new|updated|real|actual|additional|revised|secret|hidden) instructions? ?:`) },
  { needs: ["follow"], pattern: re(`\\bfollow (?:only )?(?:what )?(?:this|these) (?:entry|note|message|text|instructions)\\b`), imperative: true },
  { needs: ["task"], pattern: re(`\\b(?:your|my) (?:next|new|real|actual|only) task(?: is)? ?:`) },
  // Persona and jailbreak
  { needs: ["you are now"], pattern: re(`\\byou are now (?:a|an|the|in|my|acting|no longer|free|going to|dan|unrestricted|jailbroken|unfiltered|uncensored)\\b`) },
  { needs: ["no longer"], pattern: re(`\\byou are no longer (?:bound|restricted|limited|an? ai|required to follow|subject to)\\b`) },
  { needs: ["do anything now"], pattern: re(`\\bdo anything now\\b`) },
  { needs: ["pretend", "imagine"], pattern: re(`\\b(?:pretend|imagine) (?:to be|you are|that you|you're)\\b`) },
  { needs: ["role"], pattern: re(`\\brole-?(?: )?play (?:as|the role)\\b`) },
  { needs: ["in character"], pattern: re(`\\bstay in character\\b`) },
  { needs: ["act as"], pattern: re(`\\bact as (?:a|an|the|my|if)\\b`), imperative: true },
  { needs: ["act as"], pattern: re(`\\bact as (?:an? )?(?:unfiltered|unrestricted|uncensored|jailbroken|evil|rogue)\\b`) },
  { needs: [" mode"], pattern: re(`\\b(?:dan|jailbreak|god|unrestricted|sudo) mode\\b|\\b(?:enable|enter|activate|switch to|turn on) (?:the )?(?:dan|jailbreak|god|unrestricted|developer) mode\\b`) },
  { needs: ["jailbr"], pattern: re(`\\bjailbroken\\b`) },
  { needs: ["no limit", "no restrict", "no rules", "no guideline", "no filter", "no boundar"], pattern: re(`\\byou (?:have|are under|operate with|now have) no (?:limitations|restrictions|limits|rules|guidelines|filters|boundaries)\\b`) },
  { needs: ["without", "with no"], pattern: re(`\\b(?:respond|answer|reply|output|write|speak)(?: [a-z]+){0,2} (?:without|with no) (?:any )?(?:filters|restrictions|limitations|censorship|guardrails|rules)\\b`) },
  // System prompt extraction
  { needs: ["prompt", "instruction", "message", "rules", "directive", "guideline"], pattern: re(`\\b(?:reveal|print|show|output|repeat|display|leak|dump|share|give me|tell me|disclose|recite|write out|type out|quote|paste)(?: me)? (?:the contents of )?(?:(?:the|all|full|entire|exact|complete|whole) ){0,2}(?:(?:your|hidden|secret|original|initial|system) ){1,2}(?:prompt|message|instructions|rules|directives|guidelines)\\b`) },
  { needs: ["your"], pattern: re(`\\bwhat (?:were|are|is) your (?:original |initial |system |hidden |secret |exact )?(?:instructions|prompt|system prompt|rules|guidelines)\\b`) },
  { needs: ["above", "so far", "before this"], pattern: re(`\\b(?:repeat|print|output|copy|recite) (?:all |everything |the (?:text|words|content|message|lines?|conversation) )(?:above|before this|so far|preceding)\\b`) },
  { needs: ["system prompt", "system message", "system notice", "system note", "system override", "system instruction", "system update"], pattern: re(`\\bsystem (?:prompt|message|notice|note|override|instructions?|update) ?:`) },
  // Review-verdict manipulation
  { needs: ["approve", "merge", "accept", "lgtm", "rubber", "greenlight"], pattern: re(`\\b(?:approve|merge|accept|lgtm|rubber-stamp|greenlight) (?:this|the|that) ${WORK}\\b`), imperative: true },
  { needs: ["lgtm", "approved", "looks good", "no issues", "ship it", "all good"], pattern: re(`\\b(?:respond|reply|answer|say|output|return|comment)(?: only)? (?:with|by saying) ["'\`]?(?:lgtm|approved|looks good|no issues|ship it|all good)`) },
  { needs: ["report no", "report zero"], pattern: re(`\\breport (?:no|zero) (?:findings|issues|problems|vulnerabilities|bugs)\\b`) },
  { needs: ["not flag", "n't flag", "never flag", "not report", "n't report", "never report", "not mention", "n't mention", "never mention", "not raise", "n't raise", "not comment", "not point"], pattern: re(`\\b(?:do not|don't|never) (?:flag|report|mention|raise|comment on|point out) (?:any|a single) (?:[a-z]+ )?(?:issues?|findings?|problems?|vulnerabilit(?:y|ies)|bugs?|concerns?)\\b`) },
  { needs: [" as "], pattern: re(`\\b(?:mark|treat|classify|consider|label|rate|score) (?:this|the|these|all|every) ${WORK}s? as ${SAFE}\\b`) },
  { needs: ["tell"], pattern: re(`\\btell (?:the )?(?:user|reviewer|human|maintainers?|team) (?:that )?(?:[a-z]+ ){0,3}(?:is|are|looks|was) ${SAFE}\\b`) },
  { needs: ["score", "grade", "rating", "mark"], pattern: re(`\\b(?:give|assign|award) (?:this|the) ${WORK} (?:a )?(?:passing|perfect|high|top|full) (?:score|grade|rating|mark)\\b`) },
  { needs: ["passed", "pass", "succeeded", "green"], pattern: re(`\\bsay (?:that )?(?:all|the|every) (?:checks|tests|reviews|scans) (?:passed|pass|succeeded|are green)\\b`) },
  // Concealment
  { needs: ["tell", "inform", "notify", "alert", "mention", "reveal"], pattern: re(`\\b(?:do not|don't|never) (?:tell|inform|notify|alert|mention (?:this|it|these|that) to|reveal (?:this|it) to) (?:the )?(?:user|reviewer|human|operator|developers?) (?:about )?(?:this|these|that|the) (?:instructions?|message|note|entry|request|text|prompt)\\b`) },
  { needs: ["you were", "you have been", "you are being"], pattern: re(`\\b(?:never|do not|don't) (?:mention|reveal|disclose|say|admit|acknowledge) (?:that )?you (?:were|have been|are being) (?:told|instructed|asked|prompted)\\b`) },
  { needs: ["secret from", "hidden from", "confidential from", "private from"], pattern: re(`\\bkeep (?:this|these|it|that) (?:[a-z]+ )?(?:secret|hidden|confidential|private) from\\b`) },
  { needs: ["without"], pattern: re(`\\b(?:quietly|silently|secretly),? without (?:telling|informing|alerting|notifying) the (?:user|reviewer|human|operator)\\b|\\bwithout (?:telling|informing) the (?:user|reviewer|human) that (?:this|the) (?:entry|note|message|instruction)\\b`) },
  // Exfiltration and tool abuse
  { needs: ["send", "post", "upload", "exfiltrat", "forward", "leak", "mail", "transmit", "paste", "publish"], pattern: re(`\\b(?:send|post|upload|exfiltrate|forward|leak|email|e-mail|transmit|paste|publish) (?:(?:the|all|every|your|any) )*(?:contents? of (?:the )?)?${SECRETS}(?: file)?\\b.{0,60}?\\b(?:to|into|at|as|in)\\b`), unnegated: true },
  { needs: ["include"], pattern: re(`\\binclude (?:every|all|any|the) (?:api keys?|secrets?|tokens|credentials|passwords|environment variables)(?: you (?:can )?(?:see|find|have))?\\b`), unnegated: true },
  { needs: ["follow", "obey", "execute", "carry out", "do what"], pattern: re(`\\b(?:fetch|visit|open|load|read|browse to|go to|curl) (?:the |this |that )?(?:url|link|page|site|website|address|file)\\b.{0,80}?\\b(?:follow|obey|execute|carry out|do what) (?:the |its |those |any )?(?:instructions|it says|commands|steps)\\b`) },
  { needs: ["tool"], pattern: re(`\\b(?:run|execute|call|invoke|use) (?:your |the )?(?:shell|terminal|bash|command[- ]line|code[- ]execution|browser|http) tool\\b`), unnegated: true },
  { needs: ["curl"], pattern: re(`\\b(?:run|execute) curl\\b.{0,80}?\\b(?:secrets?|tokens?|credentials|env|environment|\\.env|keys?)\\b`), unnegated: true },
  // Authority claims
  { needs: ["notice", "message", "update", "instruction", "directive", "override", "announcement"], pattern: re(`\\b(?:important|urgent|critical|official|mandatory)(?: system| security| admin)? (?:notice|message|update|instruction|directive|override|announcement) ?:`) },
  { needs: ["from the", "from your"], pattern: re(`\\b(?:this|the following) (?:message|instruction|note|text|entry|request) (?:comes|is|was sent) from (?:the |your )?(?:system|administrator|admin|developers?|operator|owner|security team|maintainers?|anthropic|openai|root)\\b`) },
  { needs: ["to the", "for the", "to all", "for all", "to ai", "for ai", "to any", "to agent", "for agent"], pattern: re(`\\b(?:note|message|attention|instructions?|notice|memo|reminder) (?:to|for) (?:the |all |any )?${AI}\\b`) },
  { needs: ["attention"], pattern: re(`\\battention,? (?:all )?(?:ai|llm|agents?|assistants?|bots?|models?)\\b`) },
  { needs: ["authori", "instructed you", "allowed you", "permitted you", "told you", "asked you", "approved you"], pattern: re(`\\b(?:anthropic|openai|the developers?|your (?:creators?|developers?|operators?|owners?|administrators?)|the (?:system )?administrators?|the operators?|the maintainers?) (?:has|have) (?:authorized|authorised|instructed|allowed|permitted|told|asked|approved) you\\b`) },
  { needs: ["as your"], pattern: re(`\\bas your (?:operator|developer|creator|administrator|admin|owner|supervisor|system)\\b`) },
  { needs: ["override"], pattern: re(`\\bpriority override\\b|\\boverrides? (?:is |are )?in effect\\b`) },
  { needs: ["priority over", "precedence over"], pattern: re(`\\b(?:takes|has) (?:priority|precedence) over (?:your|all|the|any) (?:previous |prior |system |other )?(?:prompt|instructions|rules|guidelines)\\b`) },
  // Delimiter escape
  { needs: ["end of"], pattern: re(`\\bend of (?:the )?(?:knowledge context|entries|system prompt|instructions)\\b|(?:^|[(\\[<=*#-] ?)end of (?:the )?(?:entry|document|data|context|prompt)\\b`) },
  { needs: ["begin"], pattern: re(`\\bbegin (?:new|the real|the actual|your new) (?:instructions|task|session|conversation)\\b`) },
  { needs: ["as the"], pattern: re(`\\bnow,? as the (?:assistant|ai|system|model)\\b`) },
  // Encoded instructions and other languages
  { needs: ["decod", "decipher", "rot13", "reverse"], pattern: re(`\\b(?:decode|base64[- ]?decode|decipher|rot13|reverse)\\b.{0,60}?\\b(?:follow|execute|obey|run|apply|carry (?:it )?out)\\b`) },
  { needs: ["ignor"], pattern: re(`\\bignora(?:r)? (?:todas )?(?:las )?(?:instrucciones|indicaciones|reglas) (?:anteriores|previas)\\b|\\bignorier(?:e|en)? (?:alle )?(?:vorherigen|bisherigen|obigen|fruheren) (?:anweisungen|instruktionen|regeln)\\b|\\bignore(?:z|r)? (?:toutes )?les (?:instructions|consignes|regles) (?:precedentes|anterieures)\\b|\\bignore (?:todas )?as (?:instrucoes|regras) anteriores\\b|\\bignora (?:tutte )?le istruzioni precedenti\\b`) },
  // Chat-template role markers and closing tags of the context they sit in
  { needs: ["<|", "[inst]", "[/inst]", "<<sys>>", "<</sys>>", "<", "</"], pattern: re(`<\\|[a-z_]{2,30}\\|>|\\[\\/?inst\\](?![a-z])|<<\\/?sys>>|<(?:system|assistant|developer|instructions?|system-prompt)>|<\\/(?:system|assistant|user|human|developer|tool|instructions?|system-prompt|knowledge|knowledge-context|entries|entry|context|prompt|document)(?:-[a-z]+)*>`) },
];

/** Imperative position: the start of the text or a sentence, or after a modal or "please", "and", "now" … */
export const IMPERATIVE_BEFORE = /(?:^|[.!?:;>)\]*-] ?|\b(?:you (?:must|should|will|shall|need to|have to)|please|just|always|simply|now|and|then|so|must|should|kindly),? )$/;
/** Negated: "never …", "do not …", "must not …" right before. */
export const NEGATED_BEFORE = /\b(?:never|not|don't|dont|avoid|cannot|can't|won't|shouldn't|mustn't|no one should|nobody should)(?: [a-z]+)? $/;

/** Spaced-out or punctuated letters (`i g n o r e`, `i.g.n.o.r.e`), matched on letters only. */
export const COMPACT = /ignore(?:all|the|any|your){0,3}(?:previous|prior|above|earlier)(?:instructions|prompts|rules)|disregard(?:all|the|any|your){0,3}(?:previous|prior|above|earlier)?(?:instructions|guidelines)|forget(?:all|your){0,2}(?:previous|prior)?instructions|(?:reveal|print|show)(?:me)?(?:your|the)systemprompt|youarenow(?:dan|jailbroken|unrestricted)/g;

/** Line-level role markers in the original text: a role alone on a (heading) line, or a chat transcript's turns. */
export const ROLE_LINE =
  /^[ \t]{0,3}(?:(?:#{1,6}|\*\*|>)[ \t]*(?:system|assistant|developer|instructions?)(?:[ \t]+(?:message|prompt|instructions?|override|note|notice))?[ \t]*:?(?:\*\*)?[ \t]*$|(?:system|assistant|developer)[ \t]*:?[ \t]*$|(?:human|assistant)[ \t]*:)/gim;
