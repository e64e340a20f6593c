/**
 * English stopwords, dropped from prose only: code regions keep every word, since there `as`,
 * `if`, `in`, `where`, `into`, `from`, `any`, `all` are keywords or method names that matter.
 */
const WORDS = `
a about above after again against all am an and any are as at be because been before being
below between both but by can could did do does doing down during each few for from further
had has have having he her here hers herself him himself his how i if in into is it its itself
just me more most my myself no nor not of off on once only or other ought our ours ourselves
out over own same she should so such than that the their theirs them themselves then there
these they this those through to too under until up very was we were what when where which
while who whom why will with would you your yours yourself yourselves also may might must shall
whether within without upon via per etc thus hence therefore however
doesn don didn isn aren wasn weren won couldn shouldn wouldn hasn haven ll ve re s t d m
`;

/** The stopword set used by the tokenizer (lowercase). */
export const STOPWORDS: ReadonlySet<string> = new Set(WORDS.split(/\s+/).filter((w) => w !== ""));
