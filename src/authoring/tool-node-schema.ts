import type { JsonSchema } from "../schema/json-schema.js";
import type { Tool } from "../tools/define-tool.js";
import type { ToolRegistry } from "../tools/tool-registry.js";

/**
 * The plan JSON Schema narrowed for one set of allowed tools, as the **response format** a model decodes under
 * (the prompt still shows the plan schema as it is): a tool node becomes one branch per allowed tool, its `tool`
 * that name and its `args` that tool's arguments (required ones required, no others), and every node spells out
 * its `depends_on`.
 *
 * Why: the plan schema's `args` is any object, and under a grammar that allows anything small models wrote
 * argument values as `{ "type": "string", "value": "Paris" }` (Qwen2.5-Coder 0.5B and 1.5B alike, measured in
 * `test/integration/authoring-real-model.test.ts`), which validation only catches at run time; and they left
 * `depends_on` out even where they referenced the node. Here the grammar forbids the first and makes the model
 * decide the second. A string stands in for any argument that is not a string, so a template
 * (`"{artifacts.x}"`) still fits; validation checks the rest, as for any plan.
 *
 * `requireDependsOn: false` leaves `depends_on` optional: a repair delta may not change it, and a 1.5B model
 * made to write it changed it (`changed_depends_on`).
 */
export function toolNodeResponseSchema(
  planSchema: JsonSchema,
  tools: ToolRegistry,
  options: { requireDependsOn?: boolean } = {},
): JsonSchema {
  const copy = structuredClone(planSchema) as Record<string, any>;
  const nodes = copy.properties?.nodes;
  if (!nodes?.items) return planSchema;
  nodes.items = narrowNode(nodes.items, tools.list(), options.requireDependsOn ?? true);
  return copy as JsonSchema;
}

function narrowNode(node: Record<string, any>, tools: readonly Tool[], deps: boolean): Record<string, any> {
  for (const key of ["anyOf", "oneOf"])
    if (Array.isArray(node[key]))
      return { ...node, [key]: node[key].flatMap((n: Record<string, any>) => branches(n, tools, deps)) };
  const narrowed = branches(node, tools, deps);
  return narrowed.length === 1 ? narrowed[0]! : { anyOf: narrowed };
}

/** A tool node schema as one branch per tool; any other node schema as it is (`depends_on` required if `deps`). */
function branches(node: Record<string, any>, tools: readonly Tool[], deps: boolean): Record<string, any>[] {
  const props = node.properties;
  const required: string[] = Array.isArray(node.required) ? node.required : [];
  const withDeps = {
    ...node,
    required:
      deps && props?.depends_on && !required.includes("depends_on") ? [...required, "depends_on"] : required,
  };
  if (!props?.tool || !props?.args || tools.length === 0) return [withDeps];
  return tools.map((tool) => ({
    ...withDeps,
    properties: { ...props, tool: { const: tool.name }, args: argsSchema(tool) },
    required: [...new Set([...withDeps.required, "args"])],
  }));
}

function argsSchema(tool: Tool): JsonSchema {
  const params = tool.parameters as Record<string, any>;
  const properties: Record<string, JsonSchema> = {};
  for (const [name, schema] of Object.entries((params.properties ?? {}) as Record<string, any>))
    properties[name] = argSchema(schema);
  return {
    type: "object",
    properties,
    ...(Array.isArray(params.required) && params.required.length ? { required: params.required } : {}),
    additionalProperties: false,
  };
}

/** One argument: a string as a string (a template is one too); another type, or a template string. */
function argSchema(schema: Record<string, any> | undefined): JsonSchema {
  const type = schema?.type;
  if (type === "string") return { type: "string" };
  if (typeof type === "string" && type !== "string") return { anyOf: [{ type }, { type: "string" }] };
  return {};
}
