import type { z } from "zod";
import { InvalidOptionError } from "../errors/invalid-option-error.js";
import { toJsonSchema, type JsonSchema, type SchemaInput } from "../schema/json-schema.js";
import { compileSchema } from "../schema/validator.js";
import { AI_SDK_TOOL_NEEDS_NAME, EXPECTED_TOOL, looksLikeAiSdkTool } from "./tool-shapes.js";

/** What a tool's `run` receives besides its arguments. */
export interface ToolContext {
  /** Aborted when the node times out, the run is cancelled or its `execution_timeout` passes. */
  signal: AbortSignal;
  /**
   * `runId/nodeId` or `runId/nodeId/itemIndex`: the same for every attempt of the same work, also after a
   * resume, so a tool with side effects can dedupe (see docs/architecture.md, "at-least-once").
   */
  idempotencyKey: string;
  runId: string;
  nodeId: string;
  itemIndex?: number;
  /** 1 for the first attempt, 2 for the first retry, … */
  attempt: number;
}

/** Options of {@link defineTool}. */
export interface ToolDefinition<Input extends SchemaInput = SchemaInput, Output = unknown> {
  /** Unique name; plans refer to the tool by it. */
  name: string;
  /** What the tool does, for people and models. */
  description: string;
  /** A shorter or more directive description shown to delegate models instead of `description`. */
  delegateDescription?: string;
  /** Arguments as a zod schema or a JSON Schema (object). */
  input: Input;
  /**
   * `true` when a delegate model may call it without the side-effect double key (read-only, idempotent tools).
   * Default `false`.
   */
  delegateSafe?: boolean;
  /** Argument names whose values are never written to traces (also `"x-sensitive": true` in the schema). */
  sensitive?: string[];
  /**
   * Hints about the tool's behaviour as its source gave them (an MCP server's `readOnlyHint`, …): kept with the
   * tool's definition (a resume refuses a tool whose hints changed) and decided by nothing; `delegateSafe`
   * decides. Default: none.
   */
  annotations?: Readonly<Record<string, string | boolean>>;
  /**
   * Reuse the tool's result for the same arguments for `ttl` seconds, in tool nodes: the run store keeps it, so
   * it outlives the run and is shared by every process on the store (a node's own `cache` overrides it). Only
   * for a `delegateSafe` (read-only) tool. Default: not cached.
   */
  cache?: { ttl: number };
  /**
   * Whether a call waits for a person's approval before it runs (`deputy resolve RUN NODE --approve|--reject`, or
   * the console's inbox): `true` for every call, or a function of the call's arguments answering `true` when this
   * call needs one. It holds wherever the tool is called from a plan: a tool node, and a delegate's accepted call
   * (on top of the side-effect double key). Default: no approval.
   */
  needsApproval?: ApprovalRule;
  run(args: Input extends z.ZodType ? z.output<Input> : any, ctx: ToolContext): Output | Promise<Output>;
}

/** A tool, normalised: its input is plain JSON Schema. */
export interface Tool {
  readonly name: string;
  readonly description: string;
  readonly delegateDescription: string | undefined;
  readonly parameters: JsonSchema;
  readonly delegateSafe: boolean;
  readonly sensitive: readonly string[];
  /** See {@link ToolDefinition.annotations}; `undefined` when the tool has none. */
  readonly annotations?: Readonly<Record<string, string | boolean>>;
  /** See {@link ToolDefinition.cache}; `undefined` when its results are not cached. */
  readonly cache?: { readonly ttl: number };
  /** See {@link ToolDefinition.needsApproval}; `undefined` when calls need no approval. */
  readonly needsApproval?: ApprovalRule;
  run(args: any, ctx: ToolContext): unknown;
}

/**
 * Whether a call of a tool waits for a person's approval before it runs: `true` (every call), or a function of
 * the call's arguments (the AI SDK's `needsApproval` form) that answers `true` when this call needs one.
 */
export type ApprovalRule = boolean | ((args: any, ctx: ToolContext) => boolean | PromiseLike<boolean>);

const NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/**
 * Defines a tool that plans, delegates and agents can call.
 *
 * @example
 * const lookup = defineTool({
 *   name: "lookup_user",
 *   description: "Find a user by e-mail",
 *   input: z.object({ email: z.string().email() }),
 *   delegateSafe: true,
 *   run: async ({ email }, { signal }) => db.users.find(email, { signal }),
 * });
 */
export function defineTool<Input extends SchemaInput, Output>(
  definition: ToolDefinition<Input, Output>,
): Tool {
  return toTool(definition);
}

/**
 * Accepts a {@link Tool}, a definition, or a plain object of the same shape (as a `.mjs` tools module exports).
 * An AI SDK tool has no name: `toTools` (a record) or `fromAiSdkTool` turns it into one.
 */
export function toTool(value: unknown): Tool {
  if (typeof value !== "object" || value === null) throw new InvalidOptionError("tool", EXPECTED_TOOL, value);
  if (looksLikeAiSdkTool(value)) throw new InvalidOptionError("tool", AI_SDK_TOOL_NEEDS_NAME, value);
  const def = value as Partial<ToolDefinition> & { parameters?: JsonSchema };
  if (typeof def.name !== "string" || !NAME.test(def.name)) {
    throw new InvalidOptionError("tool.name", "a name like `lookup_user`", def.name);
  }
  if (typeof def.description !== "string" || def.description.trim() === "") {
    throw new InvalidOptionError(`tool.description (${def.name})`, "a non-empty string", def.description);
  }
  if (typeof def.run !== "function")
    throw new InvalidOptionError(`tool.run (${def.name})`, "a function", def.run);
  const input = def.input ?? def.parameters;
  if (input === undefined) {
    throw new InvalidOptionError(`tool.input (${def.name})`, "a zod schema or a JSON Schema", input);
  }
  const parameters = toJsonSchema(input);
  try {
    // A schema that cannot be compiled would fail every call at run time; say so when the tool is defined.
    compileSchema(parameters);
  } catch (error) {
    throw new InvalidOptionError(
      `tool.input (${def.name})`,
      `a valid JSON Schema (${(error as Error).message})`,
      input,
    );
  }
  const cache = toolCache(def);
  const needsApproval = def.needsApproval;
  if (
    needsApproval !== undefined &&
    typeof needsApproval !== "boolean" &&
    typeof needsApproval !== "function"
  ) {
    throw new InvalidOptionError(
      `tool.needsApproval (${def.name})`,
      "a boolean or a function of the call's arguments",
      needsApproval,
    );
  }
  const sensitive = new Set(def.sensitive ?? []);
  const props = (parameters.properties ?? {}) as Record<string, Record<string, unknown>>;
  for (const [key, prop] of Object.entries(props)) if (prop?.["x-sensitive"] === true) sensitive.add(key);
  return Object.freeze({
    name: def.name,
    description: def.description,
    delegateDescription: def.delegateDescription,
    parameters,
    delegateSafe: def.delegateSafe === true,
    sensitive: [...sensitive],
    ...(def.annotations ? { annotations: Object.freeze({ ...def.annotations }) } : {}),
    ...(cache ? { cache } : {}),
    ...(needsApproval === undefined || needsApproval === false ? {} : { needsApproval }),
    run: def.run.bind(def),
  });
}

/** A definition's `cache`, checked: a positive number of seconds, and only on a read-only tool. */
function toolCache(def: Partial<ToolDefinition>): { readonly ttl: number } | undefined {
  if (def.cache === undefined) return undefined;
  const ttl = (def.cache as { ttl?: unknown } | null)?.ttl;
  if (typeof ttl !== "number" || !Number.isFinite(ttl) || ttl <= 0)
    throw new InvalidOptionError(
      `tool.cache (${def.name})`,
      "`{ ttl }` with a positive number of seconds",
      def.cache,
    );
  if (def.delegateSafe !== true)
    throw new InvalidOptionError(
      `tool.cache (${def.name})`,
      "absent on a tool that is not delegateSafe (only a read-only tool's results may be reused)",
      def.cache,
    );
  return Object.freeze({ ttl });
}
