export { DeputyError, serializeError, type SerializedError } from "./deputy-error.js";
export { InvalidOptionError } from "./invalid-option-error.js";
export { PlanValidationError, type PlanIssue } from "./plan-validation-error.js";
export { RunError } from "./run-error.js";
export { ToolError } from "./tool-error.js";
export { DelegateBackendError } from "./delegate-backend-error.js";
export { BudgetExceededError, type BudgetLimit, type BudgetViolation } from "./budget-exceeded-error.js";
export { InvalidResultError } from "./invalid-result-error.js";
export { AgentDefinitionError } from "./agent-definition-error.js";
