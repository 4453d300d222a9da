import { DeputyError, isMarked, markError } from "./deputy-error.js";

const marker = Symbol.for("deputy.error.DistilledModelError");

/** The codes of {@link DistilledModelError}. */
export type DistilledModelErrorCode =
  "DISTILLED_MODEL_INVALID" | "DISTILLED_ENCODER_MISMATCH" | "DISTILLED_TRUST_MISMATCH";

/**
 * A distilled delegate's model file (or a trust file) is missing, not JSON, of another format or version, or
 * malformed (`DISTILLED_MODEL_INVALID`); or it was trained on another pretrained encoder than the one given, or
 * on one that was not given (`DISTILLED_ENCODER_MISMATCH`); or a trust file was fitted for another model file
 * than the one its level uses (`DISTILLED_TRUST_MISMATCH`: `path` is the trust file, the problem names both).
 */
export class DistilledModelError extends DeputyError<DistilledModelErrorCode> {
  /** The file (or `"<object>"` for a model passed in memory). */
  readonly path: string;
  /** What is wrong, one line each (`weights.toolHead: expected 4 numbers, got 3`). */
  readonly problems: string[];

  constructor(
    path: string,
    problems: string[],
    options?: { cause?: unknown; code?: DistilledModelErrorCode },
  ) {
    super(
      options?.code ?? "DISTILLED_MODEL_INVALID",
      `Distilled model ${path} ${options?.code === "DISTILLED_ENCODER_MISMATCH" ? "and the encoder given do not match" : "is not valid"}: ${problems.slice(0, 5).join("; ")}${problems.length > 5 ? `; and ${problems.length - 5} more` : ""}.`,
      options,
    );
    markError(this, marker);
    this.path = path;
    this.problems = problems;
  }

  /** True for a DistilledModelError from this copy of the package or another. */
  static override isInstance(error: unknown): error is DistilledModelError {
    return isMarked(error, marker);
  }

  override toJSON() {
    return { ...super.toJSON(), details: { path: this.path, problems: this.problems } };
  }
}
