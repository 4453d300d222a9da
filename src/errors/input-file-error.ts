import { DeputyError, isMarked, markError } from "./deputy-error.js";

const marker = Symbol.for("deputy.error.InputFileError");

/** The codes of {@link InputFileError}. */
export type InputFileErrorCode =
  | "PLAN_NOT_FOUND"
  | "PLAN_INVALID_FILE"
  | "PLAN_INVALID_JSON"
  | "TOOLS_MODULE_NOT_FOUND"
  | "TOOLS_MODULE_INVALID"
  /** The plan calls tools, and no tools module was given (`--tools`). */
  | "TOOLS_MODULE_MISSING"
  | "STORE_NOT_FOUND"
  | "STORE_INVALID"
  | "TRACES_INVALID"
  | "TRACES_NOT_FOUND"
  | "SCRIPTED_FILE_NOT_FOUND";

/**
 * A file given as input (a plan file, a tools module, a run store, a trace file, a scripted proposals file) is
 * missing or cannot be used as one.
 */
export class InputFileError extends DeputyError<InputFileErrorCode> {
  constructor(code: InputFileErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    markError(this, marker);
  }

  /** True for a InputFileError from this copy of the package or another. */
  static override isInstance(error: unknown): error is InputFileError {
    return isMarked(error, marker);
  }
}
