/**
 * deputy's one canonical JSON: `JSON.stringify`'s text with object keys sorted at every depth (as text, by UTF-16
 * code units, integer-like keys included: `"10"` before `"9"`), so equal data always gives the same text. It is what a
 * plan's fingerprint hashes, what the prompt shows as facts, and what calls and inputs are compared by.
 *
 * Everything else is as `JSON.stringify` does it: `toJSON` is honoured (a `Date` gives its ISO text), object
 * fields that are `undefined`, functions or symbols are left out, and in arrays they become `null`. The text is
 * built directly, never through a sorted copy, so a key named `__proto__` stays an ordinary key.
 *
 * @example
 * canonicalJson({ b: 1, a: [3, { d: 1, c: 0 }] }); // '{"a":[3,{"c":0,"d":1}],"b":1}'
 */
export function canonicalJson(value: unknown): string {
  return write(value, "") ?? "null";
}

function write(input: unknown, key: string): string | undefined {
  const value =
    typeof input === "object" &&
    input !== null &&
    typeof (input as { toJSON?: unknown }).toJSON === "function"
      ? (input as { toJSON(key: string): unknown }).toJSON(key)
      : input;
  if (Array.isArray(value)) return `[${value.map((v, i) => write(v, String(i)) ?? "null").join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const record = value as Record<string, unknown>;
    const parts: string[] = [];
    for (const k of Object.keys(record).sort()) {
      const text = write(record[k], k);
      if (text !== undefined) parts.push(`${JSON.stringify(k)}:${text}`);
    }
    return `{${parts.join(",")}}`;
  }
  // undefined, a function or a symbol: no text (JSON.stringify's own answer); the caller leaves it out.
  return JSON.stringify(value) as string | undefined;
}
