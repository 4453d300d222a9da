import type { JsonSchema } from "../schema/json-schema.js";
import type { ToolRegistry } from "../tools/tool-registry.js";

/** What a model writing a plan is told about one tool it may use. */
export interface CatalogueEntry {
  name: string;
  description: string;
  /** The tool's argument JSON Schema: a node's `args` must fit it (no unknown keys). */
  parameters: JsonSchema;
  /**
   * `true`: the tool is `delegateSafe` (no side effects a delegate may not cause); `false`: it may change
   * something, and a delegate node may propose it only with the side-effect double key.
   */
  delegate_safe: boolean;
}

/** The catalogue of the tools in `registry`, in registration order: name, description, arguments, side effects. */
export function toolCatalogue(registry: ToolRegistry): CatalogueEntry[] {
  return registry.list().map((tool) => ({
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    delegate_safe: tool.delegateSafe,
  }));
}
