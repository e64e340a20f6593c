/**
 * Letters that look like Latin ones and are commonly used to dodge a comparison by name or phrase (Cyrillic, Greek).
 * Full-width and other compatibility forms need no entry: Unicode normalization (NFKC / NFKD) folds them.
 */
export const CONFUSABLES: Readonly<Record<string, string>> = {
  а: "a", в: "b", е: "e", ё: "e", к: "k", м: "m", н: "h", о: "o", р: "p", с: "c", т: "t", у: "y", х: "x", і: "i", ї: "i", ј: "j", ѕ: "s", ԁ: "d", ԛ: "q", ԝ: "w", ɡ: "g",
  α: "a", β: "b", ε: "e", ι: "i", κ: "k", ν: "v", ο: "o", ρ: "p", τ: "t", υ: "u", χ: "x",
};
