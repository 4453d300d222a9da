import { DeputyError, isMarked, markError } from "./deputy-error.js";

const marker = Symbol.for("deputy.error.PlanValidationError");

/** The codes of {@link PlanValidationError}. */
export type PlanValidationErrorCode = "PLAN_INVALID";

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
export class PlanValidationError extends DeputyError<PlanValidationErrorCode> {
  readonly issues: PlanIssue[];

  constructor(issues: PlanIssue[]) {
    const errors = issues.filter((i) => i.severity === "error");
    super(
      "PLAN_INVALID",
      `Plan is invalid (${errors.length} issue${errors.length === 1 ? "" : "s"}):\n` +
        errors.map((i) => `  ${i.code}${i.nodeId ? ` [${i.nodeId}]` : ""}: ${i.message}`).join("\n"),
    );
    markError(this, marker);
    this.issues = issues;
  }

  /** True for a PlanValidationError from this copy of the package or another. */
  static override isInstance(error: unknown): error is PlanValidationError {
    return isMarked(error, marker);
  }

  override toJSON() {
    return { ...super.toJSON(), details: { issues: this.issues } };
  }
}
