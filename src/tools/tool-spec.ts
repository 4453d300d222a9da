import type { JsonSchema } from "../schema/json-schema.js";

/**
 * A tool as a model sees it: its name, description and the JSON Schema of its arguments. Delegates see a
 * registered tool's `delegateDescription` when it has one; a calling agent sees its delegations this way.
 */
export interface ToolSpec {
  name: string;
  /** What the model reads (for delegates: the tool's `delegateDescription` when it has one). */
  description: string;
  /** JSON Schema of the tool's arguments. */
  parameters: JsonSchema;
  /** Argument names whose values traces redact (the tool's `sensitive`). Never shown to the model. */
  sensitive?: readonly string[];
}
