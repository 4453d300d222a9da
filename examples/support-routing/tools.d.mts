// Types of tools.mjs for TypeScript callers (the tests): the module itself is plain JavaScript.
import type { ToolDefinition } from "deputy-js";

export declare const tools: ToolDefinition[];
