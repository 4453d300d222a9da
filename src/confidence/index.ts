/// <reference types="node" preserve="true" />
/**
 * `deputy-js/confidence` — how far a delegate's confidence can be trusted, shared by the delegate backends,
 * `deputy distill` and `deputy eval`/`calibrate`: the answer confidence read during decoding
 * ({@link answerConfidence}), the scores that judge a confidence against outcomes ({@link auroc},
 * {@link expectedCalibrationError}, {@link riskCoverage}, {@link wilsonInterval}), the calibrator that turns raw
 * scores into a probability ({@link Calibrator}; per model: {@link fitDelegateCalibration},
 * {@link readDelegateCalibration}), and the one threshold chooser ({@link chooseThreshold}). It imports nothing
 * of deputy but its errors.
 *
 * @packageDocumentation
 */
export {
  ANSWER_TOKENS,
  answerConfidence,
  answerConfidenceOfTokens,
  CONFIDENCE_METHODS,
  valueTokens,
  type ConfidenceMethod,
  type TokenCombination,
} from "./answer-confidence.js";
export { Calibrator, logit, type CalibrationRow, type CalibratorData } from "./calibrator.js";
export {
  calibratedConfidence,
  CONTEXT_CALIBRATION_INPUTS,
  DELEGATE_CALIBRATION_INPUTS,
  delegateCalibrationInputs,
  readDelegateCalibration,
  readsContext,
  type DelegateCalibrationFile,
  type ProposalScores,
} from "./delegate-calibration.js";
export {
  proposalContext,
  verbatimShare,
  groundedCall,
  type ContextRequest,
  type ProposalContext,
} from "./proposal-context.js";
export {
  fitDelegateCalibration,
  outOfFoldCalibratedScores,
  type FitCalibrationOptions,
  type LabelledProposal,
} from "./fit-calibration.js";
export {
  auroc,
  expectedCalibrationError,
  riskCoverage,
  wilsonInterval,
  type CoveragePoint,
  type ScoredOutcome,
} from "./score-metrics.js";
export {
  chooseThreshold,
  recommendThreshold,
  REPORT_THRESHOLDS,
  thresholdTable,
  type ThresholdPoint,
} from "./threshold.js";
