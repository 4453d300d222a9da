import type { PlanIssue } from "../errors/plan-validation-error.js";

/** Builds a plan issue; `nodeId` and `path` only when known. */
export function planIssue(
  code: string,
  message: string,
  nodeId?: string,
  path?: string,
  severity: PlanIssue["severity"] = "error",
): PlanIssue {
  return { code, message, severity, ...(nodeId ? { nodeId } : {}), ...(path ? { path } : {}) };
}
