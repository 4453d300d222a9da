import { Environment } from "@marcbachmann/cel-js";
import { ExpressionError } from "../errors/expression-error.js";

const env = new Environment({ unlistedVariablesAreDyn: true, homogeneousAggregateLiterals: false });
const cache = new Map<string, (vars: Record<string, unknown>) => unknown>();

/** A compiled CEL expression: parse once, evaluate many times. Expressions see one variable, `ctx`. */
export type CelGuard = (ctx: Record<string, unknown>) => boolean;

/** Parses a CEL expression; throws `CEL_INVALID` with the parser's message. */
export function compileGuard(expression: string): CelGuard {
  let fn = cache.get(expression);
  if (!fn) {
    try {
      fn = env.parse(expression) as unknown as (vars: Record<string, unknown>) => unknown;
    } catch (cause) {
      throw new ExpressionError("CEL_INVALID", `Invalid CEL "${expression}": ${firstLine(cause)}`, { cause });
    }
    cache.set(expression, fn);
  }
  const compiled = fn;
  return (ctx) => {
    let result: unknown;
    try {
      result = compiled({ ctx });
    } catch (cause) {
      throw new ExpressionError("CEL_EVAL", `CEL "${expression}" failed: ${firstLine(cause)}`, { cause });
    }
    if (typeof result !== "boolean") {
      throw new ExpressionError("CEL_EVAL", `CEL "${expression}" gave ${typeof result}, not a boolean.`);
    }
    return result;
  };
}

function firstLine(error: unknown): string {
  return String((error as Error)?.message ?? error).split("\n")[0]!;
}
