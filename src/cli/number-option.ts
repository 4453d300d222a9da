import { InvalidOptionError } from "../errors/invalid-option-error.js";

/**
 * A command-line number: `raw` read as a number that `ok` accepts, else one `InvalidOptionError` naming the option
 * and what it expects. Empty or blank text is refused (`Number("")` is 0, which would pass for a threshold of 0).
 */
export function numberOption(
  option: string,
  raw: string,
  ok: (n: number) => boolean,
  expected: string,
): number {
  const n = Number(raw);
  if (raw.trim() === "" || !Number.isFinite(n) || !ok(n)) throw new InvalidOptionError(option, expected, raw);
  return n;
}
