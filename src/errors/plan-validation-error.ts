import { DeputyError } from "./deputy-error.js";

/** One problem found in a plan. `nodeId` is set whenever the problem belongs to a node. */
export interface PlanIssue {
  code: string;
  message: string;
  nodeId?: string;
  /** Path inside the plan JSON, e.g. `nodes[2].for_each.select`. */
  path?: string;
  severity: "error" | "warning";
}

/** A plan failed validation; `issues` lists every problem found in one pass. */
export class PlanValidationError extends DeputyError {
  readonly issues: PlanIssue[];

  constructor(issues: PlanIssue[]) {
    const errors = issues.filter((i) => i.severity === "error");
    super(
      "PLAN_INVALID",
      `Plan is invalid (${errors.length} issue${errors.length === 1 ? "" : "s"}):\n` +
        errors.map((i) => `  ${i.code}${i.nodeId ? ` [${i.nodeId}]` : ""}: ${i.message}`).join("\n"),
    );
    this.issues = issues;
  }

  override toJSON() {
    return { ...super.toJSON(), details: { issues: this.issues } };
  }
}
