/** One token of a text, with its place in the text (so a span of tokens maps back to the exact substring). */
export interface Token {
  text: string;
  /** Lower-cased text (features and matching use it). */
  lower: string;
  start: number;
  end: number;
}

// Letters/digits/underscore runs, joined across one inner `.`, `,`, `:` or `'` ("5.14", "1,000", "14:05",
// "don't", "static.example.com"); any other non-space character is a token of its own ("%", "-", ";").
// Intl.Segmenter (ICU) was the first choice; measured here it takes ~95 µs per alert-sized text against ~2 µs for
// this expression, and a proposal must stay well under 1 ms. Character n-grams make up for what a dictionary
// segmenter would add (scripts without spaces).
const TOKEN = /[\p{L}\p{M}\p{N}_]+(?:[.,:'’][\p{L}\p{M}\p{N}_]+)*|[^\s\p{L}\p{M}\p{N}_]/gu;
const NUMBER = /^[+-]?\d{1,3}(?:,\d{3})+(?:\.\d+)?$|^[+-]?\d+(?:\.\d+)?$/;

/** Splits a text into word and punctuation tokens with their offsets. */
export function tokenize(text: string): Token[] {
  const out: Token[] = [];
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(text); m; m = TOKEN.exec(text)) {
    out.push({ text: m[0], lower: m[0].toLowerCase(), start: m.index, end: m.index + m[0].length });
  }
  return out;
}

/** The number a token spells ("38", "0.9", "1,000"), or undefined. */
export function tokenNumber(text: string): number | undefined {
  if (!NUMBER.test(text)) return undefined;
  const n = Number(text.replace(/,/g, ""));
  return Number.isFinite(n) ? n : undefined;
}

/** Whether a token is a word (letters or digits), not punctuation. */
export function isWordToken(text: string): boolean {
  return /[\p{L}\p{N}]/u.test(text);
}

/** A coarse shape: `Xx` (capitalised), `x`, `X`, `d` (digits), `xd` (mixed), `p` (punctuation). */
export function tokenShape(text: string): string {
  let hasDigit = false;
  let hasLetter = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) hasDigit = true;
    else if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c > 127) hasLetter = true;
  }
  if (!hasDigit && !hasLetter) return "p";
  if (hasDigit && !hasLetter) return "d";
  if (hasDigit) return "xd";
  if (text === text.toUpperCase() && text.length > 1) return "X";
  return text[0] === text[0]?.toUpperCase() ? "Xx" : "x";
}
