/**
 * What `tools` may hold, told apart by shape. Kept apart from the adapters so that `toTool` can name the AI SDK
 * shape in its errors without importing the AI SDK adapter (which imports `toTool`).
 */

/** The one phrase every "this is not a tool" error uses, so each names both shapes deputy accepts. */
export const EXPECTED_TOOL =
  "a deputy tool (`name`, `description`, `input`, `run`: see defineTool) or an AI SDK tool (`inputSchema`, `execute`: see `tool()` from `ai`)";

/** How an AI SDK tool, which has no name of its own, gets one. */
export const AI_SDK_TOOL_NEEDS_NAME =
  'a named tool: an AI SDK tool has no name of its own, so pass it in a record keyed by its name (`{ lookup_user: tool({ ... }) }`, an AI SDK ToolSet) or wrap it with `fromAiSdkTool("lookup_user", tool({ ... }))`';

/**
 * True for something shaped like an AI SDK `tool()` (an `execute` or an `inputSchema`, and no deputy `run`).
 * Only the shape is read: the AI SDK marks its tools with nothing that a copy of another version would share.
 */
export function looksLikeAiSdkTool(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || "run" in value) return false;
  return "execute" in value || "inputSchema" in value;
}

/** True for something that means to be a deputy tool (a definition, a `Tool` or a plain object of that shape). */
export function looksLikeDeputyTool(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  return "run" in value || "input" in value || "parameters" in value || "name" in value;
}
