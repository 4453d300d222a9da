import { z } from "zod";
import type { NodeOf } from "./node-type.js";

/**
 * A tool node's own fields: the tool, its (templated) arguments and `require_approval` (the call waits for a
 * person's approval before it runs, whatever the tool says; a plan can add an approval, never waive the tool's).
 */
export const toolNodeFields = {
  tool: z.string().min(1),
  args: z.record(z.string(), z.unknown()).default({}),
  require_approval: z.boolean().optional(),
};

/** A parsed `tool` node. */
export type ToolNode = NodeOf<"tool", typeof toolNodeFields>;
