// ESC-introduced sequences (CSI `ESC [ … final`, OSC `ESC ] … BEL|ESC \`, two-byte `ESC x`) and the C1 CSI.
const ESCAPES =
  // eslint-disable-next-line no-control-regex
  /\x1b\[[0-?]{0,32}[ -/]{0,8}[@-~]|\x1b\][^\x07\x1b]{0,4096}(?:\x07|\x1b\\)|\x1b[@-_]|\x9b[0-?]{0,32}[ -/]{0,8}[@-~]/g;
// Remaining C0 controls except tab and newline, DEL, C1 controls, and bidi overrides that reorder what is shown.
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text safe to print on a terminal: escape sequences (colours, cursor moves, title changes, hyperlinks) and
 * control characters a model may emit are shown as visible `\xNN` / `\uNNNN` escapes instead of being
 * interpreted. Newlines and tabs stay.
 */
export function neutralizeTerminal(text: string): string {
  return text.replace(ESCAPES, (seq) => visible(seq)).replace(CONTROLS, (c) => visible(c));
}

function visible(text: string): string {
  let out = "";
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    out +=
      code < 0x20 || (code >= 0x7f && code <= 0x9f)
        ? `\\x${code.toString(16).padStart(2, "0")}`
        : code >= 0x202a
          ? `\\u${code.toString(16).padStart(4, "0")}`
          : ch;
  }
  return out;
}
