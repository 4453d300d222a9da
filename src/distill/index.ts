/// <reference types="node" preserve="true" />
/**
 * `deputy-js/distill` — learned delegates: a small discriminative model learned from one node's accepted calls
 * (traces of a larger model, an `escalate_to` agent or a person) that proposes in microseconds with a calibrated
 * confidence. {@link trainDistilled} trains one from {@link examplesFromTraces} (with a sentence encoder:
 * {@link trainDistilledWithEncoder} and {@link GgufTextEncoder}); {@link measureModel} measures it on examples it
 * never saw; {@link DistilledDelegate} serves it; the model file format is {@link DistilledModelData}. The
 * calibrator and the threshold chooser it uses are `deputy-js/confidence`'s. {@link registerDistillSpecs} adds
 * `--delegate distilled=MODEL.json` (and the `relevance=`, `examples=` options) to a delegate spec registry. See
 * `docs/distill.md`.
 *
 * @packageDocumentation
 */
export { registerDistillSpecs } from "./register-spec.js";
export { DistilledDelegate, type DistilledDelegateOptions } from "./distilled-delegate.js";
export { trainDistilled, type TrainDistilledOptions, type TrainDistilledResult } from "./train-distilled.js";
export {
  trainDistilledWithEncoder,
  type EncoderTrainingTimes,
  type TrainWithEncoderOptions,
} from "./train-with-encoder.js";
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
export {
  tunePython,
  tuneReader,
  type TunedReader,
  type TuneEstimate,
  type TuneReaderOptions,
} from "./tune-reader.js";
export { callLabel, classArguments, DECLINE_LABEL, tuningSet, type TuningSet } from "./tuning-set.js";
export { measureModel, type Measurement } from "./measure-model.js";
export { DEFAULT_CONFIDENCE_FLOOR } from "./confidence-floor.js";
export { GgufTextEncoder, type GgufTextEncoderOptions } from "./gguf-text-encoder.js";
export { withExamples, type ExamplesOptions } from "./in-context-examples.js";
export type { EncoderInfo, TextEncoder } from "./text-encoder.js";
export {
  fitTrustModel,
  minimumDecisions,
  TRUST_SIGNALS,
  TrustModel,
  type FitTrustOptions,
  type TrustFit,
  type TrustFittedFor,
  type TrustModelData,
  type TrustRow,
  type TrustSignal,
  type TrustSignals,
} from "./trust-model.js";
export {
  loadTrustFile,
  loadTrustModel,
  saveTrustFit,
  saveTrustModel,
  validateTrustFile,
  validateTrustModel,
  type TrustFile,
} from "./trust-model-file.js";
export { checkTrustFittedFor, trustFittedFor, type TrustTarget } from "./trust-fitted-for.js";
