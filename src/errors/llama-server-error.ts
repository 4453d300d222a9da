import { DeputyError, isMarked, markError } from "./deputy-error.js";

const marker = Symbol.for("deputy.error.LlamaServerError");

/** The codes of {@link LlamaServerError}. */
export type LlamaServerErrorCode =
  "LLAMA_SERVER_NOT_FOUND" | "LLAMA_SERVER_EXITED" | "LLAMA_SERVER_UNHEALTHY";

/** A llama-server process (started by `deputy-js/testing`) is not installed, exited while starting, or never became healthy. */
export class LlamaServerError extends DeputyError<LlamaServerErrorCode> {
  constructor(code: LlamaServerErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    markError(this, marker);
  }

  /** True for a LlamaServerError from this copy of the package or another. */
  static override isInstance(error: unknown): error is LlamaServerError {
    return isMarked(error, marker);
  }
}
