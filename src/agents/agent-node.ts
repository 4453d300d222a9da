import { z } from "zod";
import type { NodeOf } from "../plan/node-type.js";

/** An agent node's own fields: the registered agent, which of its actions, and the (templated) input. */
export const agentNodeFields = {
  agent: z.string().min(1),
  action: z.string().min(1).optional(),
  input: z.record(z.string(), z.unknown()).default({}),
};

/** A parsed `agent` node. */
export type AgentNode = NodeOf<"agent", typeof agentNodeFields>;
