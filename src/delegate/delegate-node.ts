import { z } from "zod";
import type { NodeOf } from "../plan/node-type.js";

/**
 * A delegate node's own fields: the instruction and facts a small model reads (templated), the candidate tools,
 * and how the accept gate judges its proposal (`min_confidence`, `accept_when`, side effects) and what a
 * rejection does (`on_reject`, `escalate_to`).
 */
export const delegateNodeFields = {
  instruction: z.string().min(1),
  facts: z.record(z.string(), z.unknown()).default({}),
  tools: z
    .array(z.string().min(1))
    .min(1)
    .refine((t) => new Set(t).size === t.length, "tools must be unique"),
  min_confidence: z.number().min(0).max(1).optional(),
  accept_when: z.string().min(1).optional(),
  on_reject: z.enum(["fail", "retry_backend", "escalate"]).default("fail"),
  allow_side_effects: z.boolean().default(false),
  escalate_to: z.string().min(1).optional(),
};

/** A parsed `delegate` node. */
export type DelegateNode = NodeOf<"delegate", typeof delegateNodeFields>;
