import { Environment } from "@marcbachmann/cel-js";
import { ExpressionError } from "../errors/expression-error.js";
import { linearMatches, checkLinearPattern } from "./linear-regex.js";

// cel-js's own `string.matches` runs JavaScript's backtracking RegExp: a model-controlled string against a
// pattern such as `^(a+)+$` hangs the process, and no timeout can stop synchronous code. cel-js 8 has no way to
// replace a built-in overload, so guards call our linear-time one (RE2 semantics, as CEL specifies) under a name
// of its own, and `compileGuard` points every `matches` call at it.
const LINEAR_MATCHES = "deputyLinearMatches";
const env = new Environment({ unlistedVariablesAreDyn: true, homogeneousAggregateLiterals: false });
env.registerFunction(`string.${LINEAR_MATCHES}(string): bool`, linearMatches);
const cache = new Map<string, (vars: Record<string, unknown>) => unknown>();

/** A compiled CEL expression: parse once, evaluate many times. Expressions see one variable, `ctx`. */
export type CelGuard = (ctx: Record<string, unknown>) => boolean;

interface AstNode {
  op: string;
  args: unknown;
}

/** Points `x.matches(p)` at the linear-time function; a literal pattern that RE2 rejects is an error now. */
function useLinearMatches(node: unknown): void {
  const stack: unknown[] = [node];
  while (stack.length > 0) {
    const n = stack.pop();
    if (Array.isArray(n)) {
      stack.push(...(n as unknown[]));
      continue;
    }
    if (typeof n !== "object" || n === null || !("op" in n)) continue;
    const ast = n as AstNode;
    if (ast.op === "rcall" && Array.isArray(ast.args) && ast.args[0] === "matches") {
      ast.args[0] = LINEAR_MATCHES;
      const pattern = (ast.args[2] as AstNode[] | undefined)?.[0];
      if (pattern?.op === "value" && typeof pattern.args === "string") {
        const problem = checkLinearPattern(pattern.args);
        if (problem) throw new ExpressionError("CEL_INVALID", `matches(): ${problem}`);
      }
    }
    if (Array.isArray(ast.args)) stack.push(ast.args);
    else if (typeof ast.args === "object") stack.push(ast.args);
  }
}

/**
 * Parses and type-checks a CEL expression; throws `CEL_INVALID` with the reason (a syntax error, an unknown
 * function, a `matches()` pattern that RE2 rejects). Evaluation errors throw `CEL_EVAL`; `matches()` runs in
 * linear time whatever the pattern and the string.
 */
export function compileGuard(expression: string): CelGuard {
  let fn = cache.get(expression);
  if (!fn) {
    try {
      const parsed = env.parse(expression) as unknown as ((vars: Record<string, unknown>) => unknown) & {
        ast: unknown;
        check(): { valid: boolean; error?: unknown };
      };
      useLinearMatches(parsed.ast);
      const checked = parsed.check();
      if (!checked.valid) throw checked.error;
      fn = parsed;
    } catch (cause) {
      throw new ExpressionError("CEL_INVALID", `Invalid CEL "${expression}": ${firstLine(cause)}`, { cause });
    }
    if (cache.size > 10_000) cache.clear();
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
  return String((error as Error)?.message ?? error)
    .split("\n")[0]!
    .replaceAll(LINEAR_MATCHES, "matches");
}
