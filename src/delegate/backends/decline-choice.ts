/**
 * The answer's choice point: where the model, after `{"name":`, writes either a tool name (a string) or `null`
 * (the decline). {@link declineChoice} reads the model's own probability of declining there, so a backend can
 * decline when that probability reaches a threshold instead of only when it is the likeliest token — a small
 * model shown "answer with a call" gives `null` a real but minority share on questions no tool fits
 * (docs/quality.md, "Declining").
 */

/** Text of the answer up to the choice point (JSON allows whitespace around the colon). */
const BEFORE_CHOICE = /^\s*\{\s*"name"\s*:\s*$/;
/** An answer prefix that has chosen: `null` (declined) or the opening quote of a tool name. */
const CHOSE_NULL = /^\s*\{\s*"name"\s*:\s*n/;
const CHOSE_TOOL = /^\s*\{\s*"name"\s*:\s*"/;
/** An answer that has written the whole `null`: declined, whatever follows. */
const DECLINED = /^\s*\{\s*"name"\s*:\s*null/;

/** What {@link declineChoice} found at one decoding step. */
export interface DeclineChoice {
  /** P(null) / (P(null) + P(a tool name)) over the allowed candidates that decide (0–1). */
  probability: number;
  /** The likeliest allowed token that declines, when one is among the candidates. */
  declineToken: number | undefined;
}

/**
 * At a decoding step, the decline's share among the allowed next tokens that decide between a call and a
 * decline, or `undefined` when the answer has already chosen or no candidate decides yet (e.g. the step
 * writes `":` and the choice comes after it). A token may carry the choice inside it (`":"` opens a tool name).
 *
 * @param text the answer so far.
 * @param candidates the next-token distribution's entries (token, probability), any order.
 * @param pieceOf a token's text.
 * @param allowed whether the grammar allows a token next.
 */
export function declineChoice(
  text: string,
  candidates: Iterable<readonly [number, number]>,
  pieceOf: (token: number) => string,
  allowed: (token: number) => boolean,
): DeclineChoice | undefined {
  if (pastChoice(text)) return undefined;
  let declines = 0;
  let calls = 0;
  let declineToken: number | undefined;
  let best = -1;
  for (const [token, p] of candidates) {
    const next = text + pieceOf(token);
    const side = CHOSE_NULL.test(next) ? "null" : CHOSE_TOOL.test(next) ? "tool" : undefined;
    if (side === undefined || !allowed(token)) continue;
    if (side === "tool") calls += p;
    else {
      declines += p;
      if (p > best) [best, declineToken] = [p, token];
    }
  }
  if (declines + calls === 0) return undefined;
  return { probability: declines / (declines + calls), declineToken };
}

/** True when the answer is exactly at the choice point: `{"name":` written, the value not begun. */
export function atChoice(text: string): boolean {
  return BEFORE_CHOICE.test(text);
}

/** True once the answer has gone past the choice point (or never had one: it does not start with `{"name":`). */
export function pastChoice(text: string): boolean {
  return !BEFORE_CHOICE.test(text) && !isPrefixOfChoice(text);
}

/** True while the answer is still a prefix of `{"name":` (a step may then write the colon and the choice). */
function isPrefixOfChoice(text: string): boolean {
  return '{"name":'.startsWith(text.replace(/\s+/g, ""));
}

/**
 * The whole answer once `text` has declined (`{"name":null`, whatever token it ended in): `text` up to the
 * `null`, closed. A decline's arguments can only be empty, so nothing after the `null` is a choice and the answer
 * need not be decoded further. Undefined while the answer has not declined.
 */
export function declinedAnswer(text: string): string | undefined {
  const declined = DECLINED.exec(text);
  return declined ? `${declined[0]}}` : undefined;
}
