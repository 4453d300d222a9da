import type { z } from "zod";
import { didYouMean } from "../tools/did-you-mean.js";

/** The parts of a zod 4 schema's definition this walk reads (zod's own `_zod.def`). */
interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  innerType?: z.ZodType;
  in?: z.ZodType;
  options?: z.ZodType[];
  left?: z.ZodType;
  right?: z.ZodType;
  valueType?: z.ZodType;
  getter?: () => z.ZodType;
}

const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/**
 * `` (did you mean "depends_on"?)`` for an unknown field that is a plausible typo of a field the schema declares
 * at the same place (`path`: the path of zod's `unrecognized_keys` issue), else "". One hint, for the first key
 * that has one.
 */
export function unknownFieldHint(
  schema: z.ZodType,
  path: readonly PropertyKey[],
  keys: readonly string[],
): string {
  const fields = objectsAt(schema, path).flatMap((object) => Object.keys(defOf(object).shape ?? {}));
  for (const key of keys) {
    const hint = didYouMean(key, fields);
    if (hint !== undefined) return ` (did you mean "${hint}"?)`;
  }
  return "";
}

/** The object schemas found at `path` inside `schema` (several where a union allows several). */
function objectsAt(schema: z.ZodType, path: readonly PropertyKey[], depth = 0): z.ZodType[] {
  // Bounded: a lazy schema may refer to itself.
  if (depth > 64) return [];
  const def = defOf(schema);
  const next = (s: z.ZodType | undefined, rest = path) => (s ? objectsAt(s, rest, depth + 1) : []);
  switch (def.type) {
    case "optional":
    case "nullable":
    case "default":
    case "prefault":
    case "readonly":
    case "catch":
    case "nonoptional":
      return next(def.innerType);
    case "pipe":
      return next(def.in);
    case "lazy":
      return next(def.getter?.());
    case "union":
      return (def.options ?? []).flatMap((o) => next(o));
    case "intersection":
      return [...next(def.left), ...next(def.right)];
  }
  if (path.length === 0) return def.type === "object" ? [schema] : [];
  const [step, ...rest] = path;
  if (def.type === "object" && typeof step === "string" && def.shape && Object.hasOwn(def.shape, step))
    return next(def.shape[step], rest);
  if (def.type === "array" && typeof step === "number") return next(def.element, rest);
  if (def.type === "record") return next(def.valueType, rest);
  return [];
}
