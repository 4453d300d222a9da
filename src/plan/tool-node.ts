import { z } from "zod";
import type { NodeOf } from "./node-type.js";

/**
 * A tool node's own fields: the tool, its (templated) arguments and, for a delegate-safe tool, how long its
 * result is reused for the same arguments (`cache.ttl`, seconds; see `tool-result-cache.ts`).
 */
export const toolNodeFields = {
  tool: z.string().min(1),
  args: z.record(z.string(), z.unknown()).default({}),
  cache: z.strictObject({ ttl: z.number().positive() }).optional(),
};

/** A parsed `tool` node. */
export type ToolNode = NodeOf<"tool", typeof toolNodeFields>;
