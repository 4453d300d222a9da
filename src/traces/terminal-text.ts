/**
 * Characters that must never reach a reader as they are, wherever deputy shows untrusted text (a terminal, the
 * console's page): C0 controls except tab and newline (ESC starts every terminal escape sequence: colours,
 * cursor moves, title changes, hyperlinks), DEL, C1 controls (`\x9b` is a one-byte CSI), and the bidirectional
 * marks, embeddings, overrides and isolates that reorder what is shown ("Trojan Source").
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * The one sanitizer of shown text: every unsafe character (the list above) replaced by `render(code)` (its UTF-16 code
 * unit), everything else left as it is. The terminal and the console's client differ only in `render`.
 */
export function showUnsafe(text: string, render: (code: number) => string): string {
  return text.replace(UNSAFE, (c) => render(c.charCodeAt(0)));
}

/**
 * Text safe to print on a terminal: escape sequences and control characters a model may emit are shown as
 * visible `\xNN` / `\uNNNN` escapes instead of being interpreted (`ESC[31m` prints as `\x1b[31m`). Newlines
 * and tabs stay.
 */
export function neutralizeTerminal(text: string): string {
  return showUnsafe(text, (code) =>
    code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`,
  );
}
