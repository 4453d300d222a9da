import { DeputyError, isMarked, markError } from "./deputy-error.js";

const marker = Symbol.for("deputy.error.ModelFetchError");

/** The codes of {@link ModelFetchError}. */
export type ModelFetchErrorCode = "MODEL_NOT_FOUND";

/** A model could not be fetched into the cache: an unknown catalogue name, no network, or a failed download. */
export class ModelFetchError extends DeputyError<ModelFetchErrorCode> {
  /** What was asked for (a catalogue name or a model URI). */
  readonly model: string;

  constructor(model: string, message: string, options?: { cause?: unknown }) {
    super("MODEL_NOT_FOUND", message, options);
    markError(this, marker);
    this.model = model;
  }

  /** True for a ModelFetchError from this copy of the package or another. */
  static override isInstance(error: unknown): error is ModelFetchError {
    return isMarked(error, marker);
  }

  override toJSON() {
    return { ...super.toJSON(), details: { model: this.model } };
  }
}
