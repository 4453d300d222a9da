import type { Tool as AiSdkTool, ToolExecutionOptions } from "ai";
import { InvalidOptionError } from "../errors/invalid-option-error.js";
import { ToolError } from "../errors/tool-error.js";
import type { JsonSchema } from "../schema/json-schema.js";
import { toTool, type ApprovalRule, type Tool, type ToolContext } from "./define-tool.js";
import { loadAiSdk, type AiSdk } from "./load-ai-sdk.js";

export type { AiSdkTool };

/** Options of {@link fromAiSdkTool}. */
export interface FromAiSdkToolOptions {
  /**
   * `true` when a delegate model may call the tool without the side-effect double key. Default `false`: an AI SDK
   * tool says nothing about its side effects, so deputy assumes it has some until the host says otherwise.
   */
  delegateSafe?: boolean;
  /** A shorter or more directive description shown to delegate models. Default: the tool's `description`. */
  delegateDescription?: string;
  /** Argument names whose values are never written to traces. Default: none. */
  sensitive?: string[];
  /** The AI SDK tool context passed to `execute` (and to a `description` function). Default `{}`. */
  context?: unknown;
}

/** Options of {@link fromAiSdkTools}. */
export interface FromAiSdkToolsOptions {
  /**
   * Which tools delegate models may call without the side-effect double key: all (`true`), none (`false`) or the
   * names listed. Default `false`. A listed name that is not in the set is an error.
   */
  delegateSafe?: boolean | readonly string[];
  /** The AI SDK tool context passed to every `execute`. Default `{}`. */
  context?: unknown;
}

type Shape = {
  type?: unknown;
  description?: unknown;
  title?: unknown;
  inputSchema?: unknown;
  execute?: unknown;
  needsApproval?: unknown;
};
type Execute = (input: unknown, options: ToolExecutionOptions<unknown>) => unknown;
type Validate = NonNullable<ReturnType<AiSdk["asSchema"]>["validate"]>;
type NeedsApproval = (
  input: unknown,
  options: { toolCallId: string; messages: []; context: unknown },
) => unknown;

/**
 * Makes a deputy tool of an AI SDK `tool({ description, inputSchema, execute })`: its input schema (zod, a
 * Standard Schema or `jsonSchema()`) becomes plain JSON Schema through the AI SDK's own `asSchema`, arguments
 * pass that schema's `validate` (so `execute` gets what the AI SDK would give it: zod defaults and transforms
 * applied), and a streamed `execute` (an async iterable) gives its last value as the result.
 *
 * @example
 * const weather = fromAiSdkTool("get_weather", tool({ description, inputSchema: z.object({ city: z.string() }),
 *   execute: async ({ city }) => fetchWeather(city) }), { delegateSafe: true });
 */
export function fromAiSdkTool(name: string, tool: AiSdkTool, options: FromAiSdkToolOptions = {}): Tool {
  return aiSdkToolAsTool(name, tool, options, `tools.${name}`);
}

/**
 * {@link fromAiSdkTool}, its errors naming the tool where the caller found it (`Lead.tools.get_weather`).
 *
 * @internal
 */
export function aiSdkToolAsTool(
  name: string,
  tool: AiSdkTool,
  options: FromAiSdkToolOptions,
  where: string,
): Tool {
  if (typeof tool !== "object" || tool === null)
    throw new InvalidOptionError(where, "an AI SDK tool (`inputSchema`, `execute`)", tool);
  const shape = tool as Shape;
  if (shape.type === "provider") {
    throw new InvalidOptionError(
      where,
      "a tool deputy can run itself (an AI SDK provider tool runs at its provider, not in a plan)",
      shape.type,
    );
  }
  if (typeof shape.execute !== "function") {
    throw new InvalidOptionError(
      `${where}.execute`,
      "a function (deputy calls the tool itself)",
      shape.execute,
    );
  }
  if (shape.inputSchema === undefined || shape.inputSchema === null) {
    throw new InvalidOptionError(
      `${where}.inputSchema`,
      "a zod schema, a Standard Schema or jsonSchema({ ... })",
      shape.inputSchema,
    );
  }
  const schema = loadAiSdk().asSchema(shape.inputSchema as Parameters<AiSdk["asSchema"]>[0]);
  const context = options.context ?? {};
  const execute = shape.execute as Execute;
  const validate = schema.validate;
  return toTool({
    name,
    description: describe(shape, context),
    delegateDescription: options.delegateDescription,
    input: plainJsonSchema(schema, where),
    delegateSafe: options.delegateSafe === true,
    sensitive: options.sensitive,
    ...needsApproval(shape.needsApproval, validate, context, where),
    run: (args: unknown, ctx: ToolContext) =>
      validate
        ? validateThenRun(name, validate, execute, args, ctx, context)
        : run(execute, args, ctx, context),
  });
}

/**
 * {@link fromAiSdkTool} for each entry of an AI SDK `ToolSet`, named by its key. A `ToolSet` passed straight as
 * `tools` goes through here with the default options (no tool delegate-safe).
 *
 * @example
 * runPlan(plan, { tools: fromAiSdkTools({ get_weather, send_email }, { delegateSafe: ["get_weather"] }) });
 */
export function fromAiSdkTools(
  tools: Readonly<Record<string, AiSdkTool>>,
  options: FromAiSdkToolsOptions = {},
): Tool[] {
  if (typeof tools !== "object" || tools === null || Array.isArray(tools))
    throw new InvalidOptionError("tools", "an AI SDK ToolSet (a record of tools by name)", tools);
  const safe = options.delegateSafe ?? false;
  if (Array.isArray(safe)) {
    const unknown = safe.filter((n) => !Object.hasOwn(tools, n));
    if (unknown.length > 0) {
      throw new InvalidOptionError(
        "delegateSafe",
        `names of tools in the set (${Object.keys(tools).join(", ")})`,
        unknown.join(", "),
      );
    }
  }
  return Object.entries(tools).map(([name, tool]) =>
    fromAiSdkTool(name, tool, {
      delegateSafe: safe === true || (Array.isArray(safe) && safe.includes(name)),
      context: options.context,
    }),
  );
}

/**
 * The tool's `needsApproval` as deputy's: a boolean as it is; the function form asked with the call's input as
 * `execute` would get it (through the schema's `validate`, when the arguments pass it) and the AI SDK's options
 * (the idempotency key as `toolCallId`, no messages, the tool context).
 */
function needsApproval(
  rule: unknown,
  validate: Validate | undefined,
  context: unknown,
  where: string,
): { needsApproval?: ApprovalRule } {
  if (rule === undefined || rule === false) return {};
  if (rule === true) return { needsApproval: true };
  if (typeof rule !== "function")
    throw new InvalidOptionError(`${where}.needsApproval`, "a boolean or a function", rule);
  const ask = rule as NeedsApproval;
  return {
    needsApproval: async (args: unknown, ctx: ToolContext) => {
      const checked = validate ? await validate(args) : undefined;
      const input = checked?.success ? checked.value : args;
      return (await ask(input, { toolCallId: ctx.idempotencyKey, messages: [], context })) === true;
    },
  };
}

function describe(shape: Shape, context: unknown): unknown {
  const description =
    typeof shape.description === "function"
      ? (shape.description as (o: { context: unknown }) => unknown)({ context })
      : shape.description;
  // deputy needs a description (delegates read it); an AI SDK tool may have only a title.
  return description ?? shape.title;
}

/** The schema's JSON Schema, without `$schema` (a draft-07 URI that deputy's 2020-12 validator does not load). */
function plainJsonSchema(schema: ReturnType<AiSdk["asSchema"]>, where: string): JsonSchema {
  let json: unknown;
  try {
    json = schema.jsonSchema;
  } catch (cause) {
    throw new InvalidOptionError(
      `${where}.inputSchema`,
      `a schema with a JSON Schema (${(cause as Error).message})`,
      undefined,
    );
  }
  if (typeof (json as PromiseLike<unknown> | undefined)?.then === "function") {
    throw new InvalidOptionError(
      `${where}.inputSchema`,
      "a schema whose JSON Schema is known at once (await it, then pass jsonSchema(resolved))",
      "a promise",
    );
  }
  if (typeof json !== "object" || json === null || Array.isArray(json))
    throw new InvalidOptionError(`${where}.inputSchema`, "a JSON Schema object", json);
  const { $schema: _dropped, ...rest } = json as JsonSchema;
  return rest;
}

async function validateThenRun(
  name: string,
  validate: Validate,
  execute: Execute,
  args: unknown,
  ctx: ToolContext,
  context: unknown,
): Promise<unknown> {
  const checked = await validate(args);
  if (!checked.success) {
    const issue = checked.error.message;
    throw new ToolError(
      "TOOL_ARGS_INVALID",
      name,
      `Arguments for "${name}" do not fit its schema: ${issue}`,
      {
        issues: [issue],
        cause: checked.error,
      },
    );
  }
  return run(execute, checked.value, ctx, context);
}

function run(execute: Execute, input: unknown, ctx: ToolContext, context: unknown): unknown {
  // The idempotency key stands in for the AI SDK's call id: the same for every attempt of the same work.
  const result = execute(input, {
    toolCallId: ctx.idempotencyKey,
    messages: [],
    abortSignal: ctx.signal,
    context,
  });
  return isAsyncIterable(result) ? lastValue(result, ctx.signal) : result;
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === "object" && value !== null && Symbol.asyncIterator in value;
}

/** A streamed result is its last value (as the AI SDK's final tool output is); the stream stops on an abort. */
async function lastValue(stream: AsyncIterable<unknown>, signal: AbortSignal): Promise<unknown> {
  let last: unknown;
  for await (const value of stream) {
    signal.throwIfAborted();
    last = value;
  }
  return last;
}
