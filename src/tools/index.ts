/// <reference types="node" preserve="true" />
export {
  defineTool,
  toTool,
  type ApprovalRule,
  type Tool,
  type ToolContext,
  type ToolDefinition,
} from "./define-tool.js";
export {
  fromAiSdkTool,
  fromAiSdkTools,
  type AiSdkTool,
  type FromAiSdkToolOptions,
  type FromAiSdkToolsOptions,
} from "./from-ai-sdk-tool.js";
export type { ToolsModule } from "./load-tools-module.js";
export { toAiSdkTools } from "./to-ai-sdk-tools.js";
export { toTools, type ToolInput, type ToolsInput } from "./to-tools.js";
export { ToolRegistry } from "./tool-registry.js";
export type { ToolSpec } from "./tool-spec.js";
