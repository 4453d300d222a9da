import { RE2JS } from "re2js";
import { ExpressionError } from "../errors/expression-error.js";

// Compiled patterns by source: guards run the same few patterns over many proposals.
const compiled = new Map<string, RE2JS>();

function compile(pattern: string): RE2JS {
  let re = compiled.get(pattern);
  if (!re) {
    re = RE2JS.compile(pattern);
    if (compiled.size > 1_000) compiled.clear();
    compiled.set(pattern, re);
  }
  return re;
}

/**
 * CEL's `string.matches(pattern)`: true when the pattern matches anywhere in the text, with RE2 semantics and in
 * time linear in the text (re2js, a pure-JavaScript port of RE2) — no pattern makes it backtrack.
 * Throws on a pattern RE2 rejects (lookaround, backreferences).
 */
export function linearMatches(text: string, pattern: string): boolean {
  let re: RE2JS;
  try {
    re = compile(pattern);
  } catch (error) {
    throw new ExpressionError(
      "CEL_EVAL",
      `invalid regular expression ${JSON.stringify(pattern)}: ${(error as Error).message}`,
      { cause: error },
    );
  }
  return re.matcher(text).find();
}

/** Why RE2 rejects a pattern, or `undefined` when it compiles. */
export function checkLinearPattern(pattern: string): string | undefined {
  try {
    compile(pattern);
    return undefined;
  } catch (error) {
    return `invalid regular expression ${JSON.stringify(pattern)} (RE2 syntax): ${(error as Error).message}`;
  }
}
