/// <reference types="node" preserve="true" />
/**
 * `deputy-js/errors` — every error deputy throws. Each class has a stable `code` (a union type per class), typed
 * context fields, `toJSON()` as plain data, and a static `isInstance()` that works across duplicate copies
 * of the package.
 *
 * @packageDocumentation
 */
export { DeputyError, serializeError, type SerializedError } from "./deputy-error.js";
export { AgentDefinitionError, type AgentDefinitionErrorCode } from "./agent-definition-error.js";
export {
  BudgetExceededError,
  type BudgetExceededErrorCode,
  type BudgetLimit,
  type BudgetViolation,
} from "./budget-exceeded-error.js";
export { DelegateBackendError, type DelegateBackendErrorCode } from "./delegate-backend-error.js";
export { DistilledModelError, type DistilledModelErrorCode } from "./distilled-model-error.js";
export { ExpressionError, type ExpressionErrorCode } from "./expression-error.js";
export { InputFileError, type InputFileErrorCode } from "./input-file-error.js";
export { InvalidOptionError, type InvalidOptionErrorCode } from "./invalid-option-error.js";
export { InvalidResultError, type InvalidResultErrorCode } from "./invalid-result-error.js";
export { LlamaServerError, type LlamaServerErrorCode } from "./llama-server-error.js";
export { McpSourceError, type McpSourceErrorCode } from "./mcp-source-error.js";
export { ModelFetchError, type ModelFetchErrorCode } from "./model-fetch-error.js";
export { NodeError, type NodeErrorCode } from "./node-error.js";
export { PlanAuthoringError, type PlanAuthoringErrorCode } from "./plan-authoring-error.js";
export {
  PlanValidationError,
  type PlanIssue,
  type PlanValidationErrorCode,
} from "./plan-validation-error.js";
export { RepairError, type RepairErrorCode } from "./repair-error.js";
export { RunError, type RunErrorCode } from "./run-error.js";
export { RunLeasedError, type LeaseHolder } from "./run-leased-error.js";
export { ToolError, type ToolErrorCode } from "./tool-error.js";
