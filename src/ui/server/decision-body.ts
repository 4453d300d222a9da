import { z } from "zod";
import { RunError } from "../../errors/run-error.js";
import type { Decision } from "./resolve-escalation.js";

const body = z.strictObject({
  nodeId: z.string().min(1).max(200),
  item: z.int().min(0).optional(),
  by: z.string().trim().min(1, "say who decides").max(100),
  call: z
    .strictObject({
      name: z.string().min(1).max(200),
      arguments: z.record(z.string(), z.unknown()).default({}),
    })
    .optional(),
  value: z.unknown().optional(),
  skip: z.literal(true).optional(),
});

/** A decision posted by the inbox: `{ nodeId, item?, by, call | value | skip }`, checked strictly. */
export function parseDecision(input: unknown): { nodeId: string; decision: Decision } {
  const parsed = body.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.length ? `${issue.path.join(".")}: ` : "";
    throw new RunError("RESOLUTION_INVALID", `Invalid decision: ${where}${issue.message}.`);
  }
  const { nodeId, item, by, call, value, skip } = parsed.data;
  const given = [call !== undefined, "value" in parsed.data, skip === true].filter(Boolean).length;
  if (given !== 1)
    throw new RunError(
      "RESOLUTION_INVALID",
      `A decision gives exactly one of call, value or skip (got ${given}).`,
    );
  const where = { ...(item === undefined ? {} : { item }), by };
  const decision: Decision = call ? { ...where, call } : skip ? { ...where, skip } : { ...where, value };
  return { nodeId, decision };
}
