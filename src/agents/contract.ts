import { AgentDefinitionError } from "../errors/agent-definition-error.js";
import { toJsonSchema, type JsonSchema, type SchemaInput } from "../schema/json-schema.js";
import { normalizeBudget, type Budget } from "./budget.js";

/** What a contract does with an answer that does not fit `returns`. */
export type OnInvalid = "error" | "raise";

/** Options of {@link delegation}. */
export interface ContractOptions {
  /**
   * Required, non-empty. The only thing a calling model reads before deciding to hand work over: say what the
   * action does and when to use it, for a reader who has never seen the code.
   */
  description: string;
  /** The arguments, as zod or JSON Schema (an object schema). Keywords such as `enum`, `format`, `minimum` pass through verbatim. */
  input: SchemaInput;
  /** The declared output: becomes the sub-agent's structured-output format; the answer is fully validated against it. */
  returns?: SchemaInput;
  /** The default budget callers inherit (a call site's `budget` overrides it key by key). */
  budget?: Budget;
  /** `"error"` (default): the caller gets `{ error: "invalid_result", … }`; `"raise"`: throw `InvalidResultError`. */
  onInvalid?: OnInvalid;
}

/** A declared, normalised contract: one action a sub-agent exposes to callers. */
export interface Contract {
  readonly kind: "deputy.contract";
  /** The action it runs (also the default tool name). */
  readonly name: string;
  readonly description: string;
  /** The tool's parameters as the calling model sees them: `required` and `additionalProperties: false` always set. */
  readonly input: JsonSchema;
  readonly returns: JsonSchema | undefined;
  readonly budget: Budget;
  readonly onInvalid: OnInvalid;
}

/** Tool names a provider accepts (OpenAI's rule, the strictest common one). */
export const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Declares one action a sub-agent exposes to calling agents.
 *
 * @example
 * const classify = delegation("classify", {
 *   description: "Classify a support ticket by topic and urgency",
 *   input: z.object({ body: z.string().describe("The customer's message, verbatim") }),
 *   returns: z.object({ category: z.enum(["billing", "bug", "account", "other"]), urgency: z.enum(["low", "normal", "high"]) }),
 * });
 */
export function delegation(name: string, options: ContractOptions): Contract {
  if (typeof name !== "string" || !TOOL_NAME.test(name)) {
    throw new AgentDefinitionError(
      `A delegation name must be 1–64 letters, digits, \`_\` or \`-\` (it becomes a tool name), got ${JSON.stringify(name)}.`,
    );
  }
  if (typeof options !== "object" || options === null) {
    throw new AgentDefinitionError(
      `delegation("${name}") needs an options object with \`description\` and \`input\`.`,
    );
  }
  if (typeof options.description !== "string" || options.description.trim() === "") {
    throw new AgentDefinitionError(
      `delegation("${name}") needs a non-empty \`description\`: it is the only thing the calling model reads ` +
        `before deciding to hand work over. Say what the action does and when to use it.`,
    );
  }
  if (options.onInvalid !== undefined && options.onInvalid !== "error" && options.onInvalid !== "raise") {
    throw new AgentDefinitionError(
      `delegation("${name}"): \`onInvalid\` must be "error" or "raise", got ${JSON.stringify(options.onInvalid)}.`,
    );
  }
  return {
    kind: "deputy.contract",
    name,
    description: options.description.trim(),
    input: toToolParameters(options.input, name),
    returns:
      options.returns === undefined
        ? undefined
        : objectSchema(options.returns, `delegation("${name}").returns`),
    budget: normalizeBudget(options.budget, `delegation("${name}").budget`),
    onInvalid: options.onInvalid ?? "error",
  };
}

/** Is `value` a contract made by {@link delegation}? */
export function isContract(value: unknown): value is Contract {
  return typeof value === "object" && value !== null && (value as Contract).kind === "deputy.contract";
}

/**
 * The contract's input as tool parameters: an object schema with `required` (empty when nothing is) and
 * `additionalProperties: false`; everything else passes through verbatim.
 */
export function toToolParameters(input: SchemaInput | undefined, name: string): JsonSchema {
  if (input === undefined) {
    throw new AgentDefinitionError(
      `delegation("${name}") needs \`input\`: a zod object or a JSON Schema object.`,
    );
  }
  const schema = objectSchema(input, `delegation("${name}").input`);
  return {
    ...schema,
    type: "object",
    properties: schema.properties ?? {},
    required: Array.isArray(schema.required) ? schema.required : [],
    additionalProperties: false,
  };
}

function objectSchema(input: SchemaInput, where: string): JsonSchema {
  let schema: JsonSchema;
  try {
    schema = toJsonSchema(input);
  } catch (error) {
    throw new AgentDefinitionError(`${where} must be a zod schema or a JSON Schema object.`, {
      cause: error,
    });
  }
  if (where.endsWith(".input") && schema.type !== undefined && schema.type !== "object") {
    throw new AgentDefinitionError(
      `${where} must describe an object (tool arguments are named), got type ${JSON.stringify(schema.type)}.`,
    );
  }
  return schema;
}
