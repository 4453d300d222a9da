import { DeputyError } from "./deputy-error.js";

/** A model could not be fetched into the cache: an unknown catalogue name, no network, or a failed download. */
export class ModelFetchError extends DeputyError {
  /** What was asked for (a catalogue name or a model URI). */
  readonly model: string;

  constructor(model: string, message: string, options?: { cause?: unknown }) {
    super("MODEL_NOT_FOUND", message, options);
    this.model = model;
  }

  override toJSON() {
    return { ...super.toJSON(), details: { model: this.model } };
  }
}
