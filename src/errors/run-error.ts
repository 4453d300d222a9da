import { DeputyError } from "./deputy-error.js";

/** A run cannot be started or resumed (unknown run id, changed plan, resolution that does not fit). */
export class RunError extends DeputyError {
  readonly runId: string | undefined;

  constructor(code: string, message: string, options?: { runId?: string; cause?: unknown }) {
    super(code, message, options);
    this.runId = options?.runId;
  }

  override toJSON() {
    return { ...super.toJSON(), details: { runId: this.runId } };
  }
}
