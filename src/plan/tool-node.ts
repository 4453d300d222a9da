import { z } from "zod";
import type { NodeOf } from "./node-type.js";

/**
 * A tool node's own fields: the tool, its (templated) arguments, `require_approval` (the call waits for a
 * person's approval before it runs, whatever the tool says; a plan can add an approval, never waive the tool's)
 * and, for a delegate-safe tool, how long its result is reused for the same arguments (`cache.ttl`, seconds; see
 * `tool-result-cache.ts`).
 */
export const toolNodeFields = {
  tool: z.string().min(1),
  args: z.record(z.string(), z.unknown()).default({}),
  require_approval: z.boolean().optional(),
  cache: z.strictObject({ ttl: z.number().positive() }).optional(),
};

/** A parsed `tool` node. */
export type ToolNode = NodeOf<"tool", typeof toolNodeFields>;
