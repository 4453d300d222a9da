/**
 * Names that live on Object.prototype (and on functions, arrays and strings): what `in` and `obj[key]` find on
 * an ordinary object, and what `obj["__proto__"] = v` turns into a prototype change. Every place that keeps
 * user- or model-given keys must treat them as data (src/plan/prototype-safety.test.ts, test/run-store-suite.ts).
 */
export const PROTO_NAMES = [
  "constructor",
  "toString",
  "hasOwnProperty",
  "valueOf",
  "isPrototypeOf",
  "propertyIsEnumerable",
  "toLocaleString",
  "__proto__",
  "__defineGetter__",
  "__lookupGetter__",
  "prototype",
  "length",
  "name",
];
