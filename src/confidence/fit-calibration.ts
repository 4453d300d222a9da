import { InvalidOptionError } from "../errors/invalid-option-error.js";
import type { ConfidenceMethod } from "./answer-confidence.js";
import { Calibrator, type CalibrationRow } from "./calibrator.js";
import {
  CONTEXT_CALIBRATION_INPUTS,
  DELEGATE_CALIBRATION_INPUTS,
  type DelegateCalibrationFile,
  delegateCalibrationInputs,
} from "./delegate-calibration.js";
import { auroc, expectedCalibrationError, type ScoredOutcome } from "./score-metrics.js";
import { chooseThreshold } from "./threshold.js";

/** A labelled proposal: its scores and whether it was exactly right (an `EvalRecord` is one). */
export interface LabelledProposal {
  confidence: number | null;
  meanTokenProbability?: number;
  correct: boolean;
  /** Candidate tools offered (for a fit with context). */
  tools?: number;
  /** Share of the argument values found verbatim in the input (for a fit with context). */
  verbatimShare?: number;
}

/** Options of {@link fitDelegateCalibration}. */
export interface FitCalibrationOptions {
  /** The model the records came from (stored in the file). */
  model: string;
  /** The confidence method the records were scored with (stored in the file). Default `"answer"`. */
  confidenceMethod?: ConfidenceMethod;
  /** Precision the recommended `min_confidence` must reach. Default 0.95. */
  targetPrecision?: number;
  /** Folds of the cross-validation that measures the calibrated score. Default 5. */
  folds?: number;
  /**
   * Also read each proposal's context — the number of candidate tools and the share of argument values found
   * verbatim in the input ({@link CONTEXT_CALIBRATION_INPUTS}). Default false.
   */
  withContext?: boolean;
}

const L2 = 0.01;

/**
 * Fits a per-model calibration: logistic regression (Newton, L2) from the logits of the choice confidence and
 * of the mean token probability to "the call is exactly right". Its quality — AUROC, ECE and the coverage at the
 * target precision — is measured out of fold (each labelled proposal scored by a fit that did not see it, folds
 * by position), and the recommended `min_confidence` is the lowest out-of-fold score whose accepted share
 * reaches the target precision ({@link chooseThreshold}, whose rounding never lets in another proposal). The
 * stored map is then fitted on all rows. Needs both scores on at least 10 proposals with both outcomes present.
 */
export function fitDelegateCalibration(
  records: readonly LabelledProposal[],
  options: FitCalibrationOptions,
): DelegateCalibrationFile {
  const targetPrecision = options.targetPrecision ?? 0.95;
  const folds = options.folds ?? 5;
  const withContext = options.withContext ?? false;
  const names = withContext ? CONTEXT_CALIBRATION_INPUTS : DELEGATE_CALIBRATION_INPUTS;
  const rows = calibrationRows(records, withContext);
  const right = rows.filter((r) => r.correct).length;
  if (rows.length < 10 || right === 0 || right === rows.length) {
    throw new InvalidOptionError(
      "--records",
      `at least 10 scored proposals (confidence and meanTokenProbability${
        withContext ? ", tools and verbatimShare" : ""
      }), some right and some wrong`,
      `${rows.length} scored, ${right} right`,
    );
  }
  const outOfFold = crossValidate(rows, folds, names);
  const best = chooseThreshold(outOfFold, targetPrecision);
  const calibrator = Calibrator.fit(rows, L2, names);
  return {
    format: "deputy-delegate-calibration",
    version: 1,
    model: options.model,
    confidenceMethod: options.confidenceMethod ?? "answer",
    calibrator: calibrator.toJSON(),
    fittedOn: rows.length,
    targetPrecision,
    recommendedMinConfidence: best?.threshold ?? 1,
    crossValidated: {
      folds,
      auroc: auroc(outOfFold) ?? null,
      ece: expectedCalibrationError(outOfFold),
      coverage: best?.coverage ?? 0,
      precision: best?.precision ?? null,
    },
  };
}

function calibrationRows(records: readonly LabelledProposal[], withContext = false): CalibrationRow[] {
  const rows: CalibrationRow[] = [];
  for (const r of records) {
    const context =
      r.tools !== undefined && r.verbatimShare !== undefined
        ? { tools: r.tools, verbatimShare: r.verbatimShare }
        : undefined;
    const inputs = delegateCalibrationInputs(r, context, withContext);
    if (inputs) rows.push({ inputs, correct: r.correct });
  }
  return rows;
}

function crossValidate(
  rows: readonly CalibrationRow[],
  folds: number,
  names: readonly string[] = DELEGATE_CALIBRATION_INPUTS,
): ScoredOutcome[] {
  const outOfFold: ScoredOutcome[] = [];
  for (let k = 0; k < folds; k++) {
    const train = rows.filter((_, i) => i % folds !== k);
    const test = rows.filter((_, i) => i % folds === k);
    if (test.length === 0) continue;
    const fitted = Calibrator.fit(train, L2, names);
    for (const r of test) outOfFold.push({ score: fitted.confidence(r.inputs), correct: r.correct });
  }
  return outOfFold;
}

/**
 * The calibrated score of every labelled proposal that has both scores, each from a fit that did not see it
 * (k-fold by position): what a calibration would have scored on unseen proposals.
 */
export function outOfFoldCalibratedScores(records: readonly LabelledProposal[], folds = 5): ScoredOutcome[] {
  return crossValidate(calibrationRows(records), folds);
}
