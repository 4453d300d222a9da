import { z } from "zod";
import type { JsonSchema } from "../schema/json-schema.js";
import { nodeSchemaOf, type NodeTypeTable } from "./node-type-table.js";
import { planHeaderSchema } from "./plan-schema.js";

/**
 * The plan format as one JSON Schema (draft 2020-12), assembled from the registered node types: the header, and
 * each node as one of the types (the engine's fields, `type`, the type's own fields; unknown fields refused).
 * What a model writing a plan is shown; the checks beyond structure (references, cycles, tools) are
 * `validatePlan`'s.
 */
export function planJsonSchema(nodeTypes: NodeTypeTable): JsonSchema {
  const nodes = [...nodeTypes].map(nodeSchemaOf);
  const node = nodes.length === 1 ? nodes[0]! : z.union(nodes);
  const plan = planHeaderSchema.extend({ nodes: z.array(node).min(1) });
  // Input, not output: a field with a default may be left out. Refinements (unique tools) have no JSON form.
  return z.toJSONSchema(plan, { io: "input", unrepresentable: "any" }) as JsonSchema;
}
