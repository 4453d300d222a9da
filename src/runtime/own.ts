/**
 * Data never reaches the prototype. Item and artifact values, store keys and node ids are data a model or a
 * user controls: looking them up with `in` or `obj[key]` on ordinary objects finds `constructor`, `toString` or
 * `__proto__` of Object.prototype, and assigning `obj["__proto__"] = v` replaces an object's prototype. These
 * helpers are what templates, select paths, stores and validation use instead.
 */

/** Keys deputy refuses as names of stored data (a store key, an artifact): they name the prototype itself. */
export const RESERVED_KEYS: ReadonlySet<string> = new Set(["__proto__"]);

/** True when `key` is an own property of `value` (an object that is not an array). */
export function hasOwnKey(value: unknown, key: string): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && Object.hasOwn(value, key);
}

/** The own property `key` of `value`, or `undefined` (never one inherited from a prototype). */
export function getOwn(value: unknown, key: string): unknown {
  return hasOwnKey(value, key) ? value[key] : undefined;
}

/** Sets an own data property, `__proto__` included (a plain assignment to `__proto__` would set the prototype). */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") {
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    target[key] = value;
  }
}

/** An empty map keyed by data: an object with no prototype, so no key is found that was not put there. */
export function dataMap<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

/**
 * An empty map keyed by integer index (a for_each node's item records): no prototype either, like
 * {@link dataMap}, but made by `Object.setPrototypeOf({}, null)`, which keeps V8's fast properties — its keys are
 * array indices (elements), so it never grows named properties — and walking its values (`Object.values`, the
 * manifest) stays a copy of its elements; `Object.create(null)`'s dictionary mode would turn every index into a
 * string first (≈1.4 ms for 10,000 items against ≈0.03).
 */
export function indexMap<T>(): Record<number, T> {
  return Object.setPrototypeOf({}, null) as Record<number, T>;
}

/** A null-prototype copy of a map keyed by data (shallow). */
export function toDataMap<T>(from: Record<string, T> | undefined): Record<string, T> {
  const out = dataMap<T>();
  if (from) for (const key of Object.keys(from)) setOwn(out as Record<string, unknown>, key, from[key]);
  return out;
}
