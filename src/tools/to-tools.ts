import { InvalidOptionError } from "../errors/invalid-option-error.js";
import { toTool, type Tool, type ToolDefinition } from "./define-tool.js";
import { aiSdkToolAsTool, type AiSdkTool } from "./from-ai-sdk-tool.js";
import {
  AI_SDK_TOOL_NEEDS_NAME,
  EXPECTED_TOOL,
  looksLikeAiSdkTool,
  looksLikeDeputyTool,
} from "./tool-shapes.js";

/** One deputy tool as `tools` may hold it: a {@link Tool} or a definition (as `defineTool` takes it). */
export type ToolInput = Tool | ToolDefinition<any, any>;

/**
 * What a `tools` option takes (plans, agents, actions, a tools module's `tools` export): a list of deputy tools,
 * or a record by name whose values are deputy tools or AI SDK `tool()`s — an AI SDK `ToolSet` fits as it is.
 * In a record an AI SDK tool is named by its key and a deputy tool keeps its own `name`. An AI SDK tool made
 * into a deputy tool this way is not delegate-safe; {@link fromAiSdkTools} says which are.
 */
export type ToolsInput = Iterable<ToolInput> | Readonly<Record<string, ToolInput | AiSdkTool>>;

/**
 * Normalises a `tools` option to deputy tools, in order. Anything that is not a tool fails with one message
 * naming both shapes deputy accepts, and where it was (`tools[2]`, `tools.lookup_user`).
 *
 * @param option the option's name in messages. Default `"tools"`.
 */
export function toTools(tools: ToolsInput, option = "tools"): Tool[] {
  if (typeof tools !== "object" || tools === null) {
    throw new InvalidOptionError(
      option,
      "a list of tools, or a record of tools by name (an AI SDK ToolSet)",
      tools,
    );
  }
  if (looksLikeOneTool(tools)) {
    // Read as a record, one tool would fail key by key (`tools.description`, `tools.execute`, …).
    throw new InvalidOptionError(
      option,
      "a list of tools or a record of tools by name, not one tool (wrap it: `[lookupUser]`, or `{ lookup_user: tool({ ... }) }`)",
      tools,
    );
  }
  if (Symbol.iterator in tools) {
    return Array.from(tools as Iterable<unknown>, (tool, i) => toOneTool(tool, `${option}[${i}]`));
  }
  return Object.entries(tools).map(([key, tool]) => toOneTool(tool, `${option}.${key}`, key));
}

function toOneTool(value: unknown, where: string, key?: string): Tool {
  if (looksLikeAiSdkTool(value)) {
    if (key === undefined) throw new InvalidOptionError(where, AI_SDK_TOOL_NEEDS_NAME, value);
    return aiSdkToolAsTool(key, value as AiSdkTool, {}, where);
  }
  if (looksLikeDeputyTool(value)) return toTool(value);
  throw new InvalidOptionError(where, EXPECTED_TOOL, value);
}

function looksLikeOneTool(value: object): boolean {
  const shape = value as { run?: unknown; execute?: unknown; inputSchema?: unknown };
  if (typeof shape.run === "function") return true;
  return typeof shape.execute === "function" && shape.inputSchema !== undefined && looksLikeAiSdkTool(value);
}
