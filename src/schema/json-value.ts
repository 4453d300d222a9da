/** What {@link checkJsonValue} found wrong, with where (`$.a[2].b`). */
export interface JsonValueProblem {
  path: string;
  reason: string;
}

/** How deeply nested a value is (a scalar is 0, `{}` is 1); walks iteratively, so any depth is measured safely. */
export function jsonDepth(value: unknown, stopAt = Infinity): number {
  let max = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== "object" || v === null) continue;
    const d = depth + 1;
    if (d > max) max = d;
    if (max > stopAt) return max;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, d]);
  }
  return max;
}

/** Deepest value deputy stores or traces: far above any real plan or tool result, far below the stack limit. */
export const MAX_JSON_DEPTH = 200;

/**
 * Why a value is not JSON data, or `undefined` when it is: only plain objects, arrays, strings, finite numbers,
 * booleans and null, nested at most `maxDepth` deep, with no cycles. (`undefined` inside objects is dropped by
 * JSON and allowed; `toJSON` values such as `Date` are allowed.) Checked iteratively.
 */
export function checkJsonValue(value: unknown, maxDepth = MAX_JSON_DEPTH): JsonValueProblem | undefined {
  const onPath = new Set<object>();
  const stack: { v: unknown; path: string; depth: number; exit?: object }[] = [
    { v: value, path: "$", depth: 0 },
  ];
  while (stack.length > 0) {
    const { v, path, depth, exit } = stack.pop()!;
    if (exit) {
      onPath.delete(exit);
      continue;
    }
    switch (typeof v) {
      case "string":
      case "boolean":
      case "undefined":
        continue;
      case "number":
        if (!Number.isFinite(v)) return { path, reason: `${v} is not a JSON number` };
        continue;
      case "bigint":
        return { path, reason: "a BigInt is not JSON (convert it to a string or a number)" };
      case "function":
        return { path, reason: "a function is not JSON" };
      case "symbol":
        return { path, reason: "a Symbol is not JSON" };
    }
    if (v === null) continue;
    const obj = v as object;
    if (typeof (obj as { toJSON?: unknown }).toJSON === "function") continue;
    if (onPath.has(obj)) return { path, reason: "a circular reference is not JSON" };
    if (depth + 1 > maxDepth) return { path, reason: `nested deeper than ${maxDepth} levels` };
    onPath.add(obj);
    stack.push({ v: undefined, path, depth, exit: obj });
    if (obj instanceof Map || obj instanceof Set) {
      return {
        path,
        reason: `a ${obj instanceof Map ? "Map" : "Set"} is not JSON (it would be stored as {})`,
      };
    }
    if (Array.isArray(obj)) {
      obj.forEach((child, i) => stack.push({ v: child, path: `${path}[${i}]`, depth: depth + 1 }));
    } else {
      for (const key of Object.keys(obj)) {
        stack.push({ v: (obj as Record<string, unknown>)[key], path: `${path}.${key}`, depth: depth + 1 });
      }
      if (Object.getOwnPropertySymbols(obj).length > 0)
        return { path, reason: "an object with Symbol keys is not JSON" };
    }
  }
  return undefined;
}
