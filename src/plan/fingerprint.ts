import { createHash } from "node:crypto";

/** Canonical JSON: object keys sorted, so the same plan always has the same fingerprint. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const keys = Object.keys(value).sort();
    return `{${keys
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** sha256 of the plan's canonical JSON: a resumed run refuses a plan whose fingerprint changed. */
export function planFingerprint(plan: unknown): string {
  return createHash("sha256").update(canonicalJson(plan)).digest("hex").slice(0, 32);
}
