/**
 * English prose stopwords. Words that are also code keywords or common method names
 * (`as`, `if`, `for`, `in`, `is`, `not`, `or`, `and`, `new`, `self`, `use`...) are deliberately
 * absent: in review context they carry meaning (`as` casts, `.or(...)`, `is_some`).
 */
const WORDS = `
a about above after again against all am an any are at be because been before being below
between both but by can could did does doing down during each few from further had has have
having he her here hers herself him himself his how i into it its itself just me more most my
myself no nor of off on once
only other ought our ours ourselves out over own same she should so such than that the
their theirs them themselves then there these they this those through to too under
until up very was we were what when where which who whom why would you your yours yourself
yourselves also may might must shall will whether within without upon via per etc thus hence therefore however
doesn don didn isn aren wasn weren won couldn shouldn wouldn hasn haven ll ve re s t d m
`;

/** The stopword set used by the tokenizer (lowercase). */
export const STOPWORDS: ReadonlySet<string> = new Set(WORDS.split(/\s+/).filter((w) => w !== ""));
