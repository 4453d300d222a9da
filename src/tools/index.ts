export { defineTool, toTool, type Tool, type ToolContext, type ToolDefinition } from "./define-tool.js";
export { didYouMean, editDistance } from "./did-you-mean.js";
export { loadToolsModule, type ToolsModule } from "./load-tools-module.js";
export { ToolRegistry } from "./tool-registry.js";
export type { ToolSpec } from "./tool-spec.js";
