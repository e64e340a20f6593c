/**
 * Letters that look like Latin ones and are commonly used to dodge a comparison by name or phrase (Cyrillic, Greek).
 * Full-width and other compatibility forms need no entry: Unicode normalization (NFKC / NFKD) folds them.
 */
export const CONFUSABLES: Readonly<Record<string, string>> = {
  а: "a", в: "b", е: "e", ё: "e", к: "k", м: "m", н: "h", о: "o", р: "p", с: "c", т: "t", у: "y", х: "x", і: "i", ї: "i", ј: "j", ѕ: "s", ԁ: "d", ԛ: "q", ԝ: "w", ɡ: "g",
  һ: "h", ӏ: "l", ɑ: "a", ı: "i", ȷ: "j", ꜱ: "s", ʏ: "y", ᴄ: "c", ᴏ: "o", ᴠ: "v", ᴡ: "w", ᴢ: "z",
  α: "a", β: "b", ε: "e", ι: "i", κ: "k", ν: "v", ο: "o", ρ: "p", τ: "t", υ: "u", χ: "x",
  // Capitals look like other Latin letters than their lower case does (Greek Υ is Y, υ is u): read before lower-casing.
  А: "a", В: "b", Е: "e", К: "k", М: "m", Н: "h", О: "o", Р: "p", С: "c", Т: "t", У: "y", Х: "x", І: "i", Ј: "j", Ѕ: "s", Ԛ: "q", Ԝ: "w", Ӏ: "l",
  Α: "a", Β: "b", Ε: "e", Ζ: "z", Η: "h", Ι: "i", Κ: "k", Μ: "m", Ν: "n", Ο: "o", Ρ: "p", Τ: "t", Υ: "y", Χ: "x",
};
