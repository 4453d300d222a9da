import type { ToolExecutionOptions, ToolSet } from "ai";
import { ToolError } from "../errors/tool-error.js";
import { compileSchema, formatIssues } from "../schema/validator.js";
import type { Tool, ToolContext } from "./define-tool.js";
import { loadAiSdk } from "./load-ai-sdk.js";
import { toTools, type ToolsInput } from "./to-tools.js";
import { ToolRegistry } from "./tool-registry.js";

/**
 * Deputy tools as an AI SDK `ToolSet`, keyed by name, for `generateText`/`streamText` or an AI SDK agent. The
 * input schema is the tool's JSON Schema, checked by deputy's own validator before `execute` (a model's bad
 * arguments come back to it as the AI SDK's invalid-input error, never reach the tool). Outside a run the
 * tool's context is the AI SDK call's: `idempotencyKey` and `runId` are the tool call id, `nodeId` the tool's
 * name, `signal` the call's abort signal. A tool's `needsApproval` becomes the AI SDK tool's, so the AI SDK's own
 * approval flow asks before each call that needs it.
 *
 * @example
 * const { text } = await generateText({ model, tools: toAiSdkTools([lookupUser]), prompt });
 */
export function toAiSdkTools(tools: ToolRegistry | ToolsInput): ToolSet {
  const list = tools instanceof ToolRegistry ? tools.list() : toTools(tools);
  const set: ToolSet = {};
  for (const tool of list) {
    if (Object.hasOwn(set, tool.name))
      throw new ToolError("TOOL_DUPLICATE", tool.name, `two tools are named "${tool.name}".`);
    set[tool.name] = toAiSdkTool(tool);
  }
  return set;
}

function toAiSdkTool(tool: Tool): ToolSet[string] {
  const { jsonSchema } = loadAiSdk();
  const check = compileSchema(tool.parameters);
  return {
    description: tool.description,
    inputSchema: jsonSchema(tool.parameters, {
      validate: (value) => {
        if (check(value)) return { success: true, value };
        const issues = formatIssues(check.errors ?? []);
        const message = `Arguments for "${tool.name}" do not fit its schema: ${issues.join("; ")}`;
        return { success: false, error: new ToolError("TOOL_ARGS_INVALID", tool.name, message, { issues }) };
      },
    }),
    execute: (input: unknown, { toolCallId, abortSignal }: ToolExecutionOptions<unknown>) =>
      tool.run(input, context(tool, toolCallId, abortSignal)),
    // The AI SDK's own approval flow then asks before each call that needs it.
    ...(tool.needsApproval === undefined ? {} : { needsApproval: aiSdkApproval(tool) }),
  };
}

function context(tool: Tool, toolCallId: string, signal: AbortSignal | undefined): ToolContext {
  return {
    signal: signal ?? new AbortController().signal,
    idempotencyKey: toolCallId,
    runId: toolCallId,
    nodeId: tool.name,
    attempt: 1,
  };
}

/** A deputy tool's `needsApproval` in the AI SDK's form: a boolean as it is, a function asked with the call. */
function aiSdkApproval(
  tool: Tool,
): boolean | ((input: unknown, options: { toolCallId: string }) => Promise<boolean>) {
  const rule = tool.needsApproval;
  if (typeof rule !== "function") return rule === true;
  return async (input, { toolCallId }) => (await rule(input, context(tool, toolCallId, undefined))) === true;
}
