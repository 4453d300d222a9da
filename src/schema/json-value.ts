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
 * JSON and allowed; `toJSON` values such as `Date` are allowed.) A bounded quick pass accepts the common case;
 * anything it is not sure of is checked iteratively (any depth), in document order. A scalar costs no allocation
 * and the path of the problem is built only when there is one.
 */
export function checkJsonValue(value: unknown, maxDepth = MAX_JSON_DEPTH): JsonValueProblem | undefined {
  if (typeof value === "object" && value !== null) {
    visitsLeft = QUICK_VISITS;
    if (quickJson(value, 0, Math.min(maxDepth, QUICK_DEPTH))) return undefined;
  }
  return checkJsonValueByWalk(value, maxDepth);
}

/** {@link checkJsonValue} by the walker alone, without the quick pass (for tests: both must always agree). */
export function checkJsonValueByWalk(
  value: unknown,
  maxDepth = MAX_JSON_DEPTH,
): JsonValueProblem | undefined {
  if (typeof value !== "object" || value === null) {
    const reason = scalarReason(value);
    return reason === undefined ? undefined : { path: "$", reason };
  }
  return checkContainer(value, maxDepth);
}

/** How deep, and through how many containers, {@link quickJson} walks before it leaves the value to the walker. */
const QUICK_DEPTH = 64;
const QUICK_VISITS = 100_000;
let visitsLeft = 0;

/**
 * True when `v` is certainly JSON data: the common case (plain objects and arrays of scalars, a tool's list of
 * records) checked by a small recursive walk that allocates nothing for arrays and only the symbol-key check for
 * objects. `false` means "not sure": anything unusual (a class instance, a value too deep, a cycle, which runs
 * into the depth or visit limit, a bad scalar) is left to {@link checkContainer}, which finds the problem and its
 * path. It only ever accepts what the walker accepts: it checks the same things, and `for…in` sees every own
 * enumerable key the walker's `Object.keys` sees (and, on a polluted prototype, more).
 */
function quickJson(v: object, depth: number, maxDepth: number): boolean {
  if (--visitsLeft < 0) return false;
  if (typeof (v as { toJSON?: unknown }).toJSON === "function") return true;
  if (depth + 1 > maxDepth) return false;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const child: unknown = v[i];
      if (typeof child === "object" && child !== null) {
        if (!quickJson(child, depth + 1, maxDepth)) return false;
      } else if (scalarReason(child) !== undefined) return false;
    }
    return true;
  }
  const proto: unknown = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return false;
  if (Object.getOwnPropertySymbols(v).length > 0) return false;
  for (const key in v) {
    const child = (v as Record<string, unknown>)[key];
    if (typeof child === "object" && child !== null) {
      if (!quickJson(child, depth + 1, maxDepth)) return false;
    } else if (scalarReason(child) !== undefined) return false;
  }
  return true;
}

/**
 * {@link checkJsonValue} of an object or array. A function of its own, so the check of a scalar (most results of
 * a for_each item) stays small: V8 then optimises this walker only where containers are checked, not once more
 * for every caller that checks scalars.
 */
function checkContainer(value: object, maxDepth: number): JsonValueProblem | undefined {
  // The containers from the root down to the value being looked at; each frame's `next` is one past the child
  // being looked at, so the frames spell its path.
  const frames: Frame[] = [];
  const onPath = new Set<object>();
  let v: unknown = value;
  for (;;) {
    if (typeof v === "object" && v !== null) {
      const reason = objectReason(v, frames.length, maxDepth, onPath);
      if (reason !== undefined) return { path: pathOf(frames), reason };
      if (typeof (v as { toJSON?: unknown }).toJSON !== "function") {
        const keys = Array.isArray(v) ? undefined : Object.keys(v);
        // A container of scalars only (a list's items, often) is checked here, with no frame of its own.
        const leaf = checkLeaf(v, keys);
        if (leaf === NOT_LEAF) {
          onPath.add(v);
          frames.push({ container: v, keys, next: 0 });
        } else if (leaf !== undefined) {
          return { path: pathOf(frames) + step(keys, leaf.at), reason: leaf.reason };
        }
      }
    } else {
      const reason = scalarReason(v);
      if (reason !== undefined) return { path: pathOf(frames), reason };
    }
    // On to the next child: of the innermost container that has one left.
    for (;;) {
      const top = frames[frames.length - 1];
      if (!top) return undefined;
      const { container, keys } = top;
      if (keys === undefined ? top.next < (container as unknown[]).length : top.next < keys.length) {
        v =
          keys === undefined
            ? (container as unknown[])[top.next]
            : (container as Record<string, unknown>)[keys[top.next]!];
        top.next++;
        break;
      }
      onPath.delete(container);
      frames.pop();
    }
  }
}

interface Frame {
  container: object;
  /** An object's own keys; `undefined` for an array. */
  keys: string[] | undefined;
  next: number;
}

function pathOf(frames: Frame[]): string {
  let path = "$";
  for (const { keys, next } of frames) path += step(keys, next - 1);
  return path;
}

function step(keys: string[] | undefined, at: number): string {
  return keys === undefined ? `[${at}]` : `.${keys[at]}`;
}

const NOT_LEAF = { at: -1, reason: "" };

/**
 * For a container whose children are all scalars: the first bad child, or `undefined` when all are fine.
 * `NOT_LEAF` when a child is an object or array (then the container is walked like any other).
 */
function checkLeaf(
  container: object,
  keys: string[] | undefined,
): { at: number; reason: string } | undefined {
  const n = keys === undefined ? (container as unknown[]).length : keys.length;
  for (let i = 0; i < n; i++) {
    const child =
      keys === undefined ? (container as unknown[])[i] : (container as Record<string, unknown>)[keys[i]!];
    if (typeof child === "object" && child !== null) return NOT_LEAF;
  }
  for (let i = 0; i < n; i++) {
    const child =
      keys === undefined ? (container as unknown[])[i] : (container as Record<string, unknown>)[keys[i]!];
    const reason = scalarReason(child);
    if (reason !== undefined) return { at: i, reason };
  }
  return undefined;
}

function scalarReason(v: unknown): string | undefined {
  switch (typeof v) {
    case "number":
      return Number.isFinite(v) ? undefined : `${v} is not a JSON number`;
    case "bigint":
      return "a BigInt is not JSON (convert it to a string or a number)";
    case "function":
      return "a function is not JSON";
    case "symbol":
      return "a Symbol is not JSON";
    default:
      return undefined; // string, boolean, undefined, null
  }
}

/** Why an object at `depth` is not JSON data (`toJSON` values are; their contents are not walked). */
function objectReason(obj: object, depth: number, maxDepth: number, onPath: Set<object>): string | undefined {
  if (typeof (obj as { toJSON?: unknown }).toJSON === "function") return undefined;
  if (onPath.has(obj)) return "a circular reference is not JSON";
  if (depth + 1 > maxDepth) return `nested deeper than ${maxDepth} levels`;
  if (Array.isArray(obj)) return undefined;
  // A plain object (the usual case) is no Map or Set: no prototype chain to walk.
  const proto: unknown = Object.getPrototypeOf(obj);
  if (proto !== Object.prototype && proto !== null) {
    if (obj instanceof Map) return "a Map is not JSON (it would be stored as {})";
    if (obj instanceof Set) return "a Set is not JSON (it would be stored as {})";
  }
  if (Object.getOwnPropertySymbols(obj).length > 0) return "an object with Symbol keys is not JSON";
  return undefined;
}
