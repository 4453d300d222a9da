/** Deepest nesting a trace line keeps; deeper values are replaced by a marker. */
export const MAX_TRACE_DEPTH = 32;

/**
 * A copy of `value` cut at `maxDepth` levels of objects and arrays: anything deeper becomes the string
 * `[nested deeper than N levels]`. The recursion is bounded by `maxDepth`, so any input is safe.
 */
export function truncateDepth(value: unknown, maxDepth: number): unknown {
  return cut(value, maxDepth, maxDepth);
}

function cut(value: unknown, left: number, maxDepth: number): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (left === 0) return `[nested deeper than ${maxDepth} levels]`;
  if (Array.isArray(value)) return value.map((v) => cut(v, left - 1, maxDepth));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    Object.defineProperty(out, k, {
      value: cut(v, left - 1, maxDepth),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}
