import { createHash } from "node:crypto";
import { canonicalJson } from "../runtime/canonical-json.js";

/**
 * sha256 of the plan's canonical JSON ({@link canonicalJson}), its first 32 hex digits: a resumed run refuses a
 * plan whose fingerprint changed. Stored runs keep theirs, so the text hashed must never change for a JSON plan.
 */
export function planFingerprint(plan: unknown): string {
  return createHash("sha256").update(canonicalJson(plan)).digest("hex").slice(0, 32);
}
