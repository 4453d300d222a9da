import { z } from "zod";
import { checkDecision } from "../../delegate/escalation/check-decision.js";
import { RunError } from "../../errors/run-error.js";
import type { Decision } from "./record-decision.js";

// The envelope only; what the decision itself is (exactly one of call, value, skip, approve or reject) is
// `checkDecision`'s.
const body = z.strictObject({
  nodeId: z.string().min(1).max(200),
  item: z.int().min(0).optional(),
  by: z.string().trim().min(1, "say who decides").max(100),
  call: z.unknown().optional(),
  value: z.unknown().optional(),
  skip: z.unknown().optional(),
  approve: z.unknown().optional(),
  reject: z.unknown().optional(),
  reason: z.unknown().optional(),
});

/**
 * A decision posted by the inbox: `{ nodeId, item?, by, call | value | skip | approve | reject (+ reason) }`,
 * checked strictly; the decision
 * by the same check as `deputy resolve` and the library's `resolveEscalation`.
 */
export function parseDecision(input: unknown): { nodeId: string; decision: Decision } {
  const parsed = body.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.length ? `${issue.path.join(".")}: ` : "";
    throw new RunError("RESOLUTION_INVALID", `Invalid decision: ${where}${issue.message}.`);
  }
  const { nodeId, item, by } = parsed.data;
  const resolution = checkDecision(parsed.data);
  const where = { ...(item === undefined ? {} : { item }), by };
  switch (resolution.kind) {
    case "call":
      return { nodeId, decision: { ...where, call: resolution.call } };
    case "skip":
      return { nodeId, decision: { ...where, skip: true } };
    case "value":
      return { nodeId, decision: { ...where, value: resolution.value } };
    case "approve":
      return { nodeId, decision: { ...where, approve: true } };
    case "reject":
      return {
        nodeId,
        decision: { ...where, reject: true, ...(resolution.reason ? { reason: resolution.reason } : {}) },
      };
  }
}
