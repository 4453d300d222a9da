/**
 * Distilled delegates: a small discriminative model learned from one node's accepted calls (traces of a larger
 * model, an `escalate_to` agent or a person) that proposes in microseconds with a calibrated confidence.
 * {@link trainDistilled} trains one from {@link examplesFromTraces}; {@link DistilledDelegate} serves it; the model
 * file format is {@link DistilledModelData}. Importing this module registers `--delegate distilled=MODEL.json`.
 * See `docs/distill.md`.
 */
export { DistilledDelegate, type DistilledDelegateOptions } from "./distilled-delegate.js";
export { trainDistilled, type TrainDistilledOptions, type TrainDistilledResult } from "./train-distilled.js";
export {
  examplesFromTraces,
  exactMatch,
  type ExampleSelection,
  type TrainingExample,
} from "./training-examples.js";
export {
  DECLINE_CLASS,
  loadModelFile,
  MODEL_FORMAT,
  MODEL_VERSION,
  saveModelFile,
  validateModel,
  type ArgumentHeadData,
  type DistilledModelData,
  type TrainingSummary,
} from "./model-file.js";
export { DistilledPredictor, type Prediction } from "./distilled-predictor.js";
export { DEFAULT_CONFIDENCE_FLOOR } from "./confidence-floor.js";
export { toolIncompatibility } from "./tool-compatibility.js";
export { registerDistilledSpec } from "./register-spec.js";
