import { z } from "zod";
import type { NodeOf } from "./node-type.js";

/** A tool node's own fields: the tool and its (templated) arguments. */
export const toolNodeFields = {
  tool: z.string().min(1),
  args: z.record(z.string(), z.unknown()).default({}),
};

/** A parsed `tool` node. */
export type ToolNode = NodeOf<"tool", typeof toolNodeFields>;
