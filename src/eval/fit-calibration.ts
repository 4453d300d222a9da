import {
  DELEGATE_CALIBRATION_INPUTS,
  type DelegateCalibrationFile,
  delegateCalibrationInputs,
} from "../delegate/backends/delegate-calibration.js";
import type { ConfidenceMethod } from "../delegate/backends/answer-confidence.js";
import { Calibrator, type CalibrationRow } from "../delegate/distilled/calibrator.js";
import { InvalidOptionError } from "../errors/index.js";
import { auroc, bestThreshold, expectedCalibrationError, type ScoredOutcome } from "./score-metrics.js";

/** A labelled proposal: its scores and whether it was exactly right (an `EvalRecord` is one). */
export interface LabelledProposal {
  confidence: number | null;
  meanTokenProbability?: number;
  correct: boolean;
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
}

const L2 = 0.01;

/**
 * Fits a per-model calibration: logistic regression (Newton, L2) from the logits of the choice confidence and
 * of the mean token probability to "the call is exactly right". Its quality — AUROC, ECE and the coverage at the
 * target precision — is measured out of fold (each labelled proposal scored by a fit that did not see it, folds
 * by position), and the recommended `min_confidence` is the lowest out-of-fold score whose accepted share
 * reaches the target precision. The stored map is then fitted on all rows. Needs both scores on at least 10
 * proposals with both outcomes present.
 */
export function fitDelegateCalibration(
  records: readonly LabelledProposal[],
  options: FitCalibrationOptions,
): DelegateCalibrationFile {
  const targetPrecision = options.targetPrecision ?? 0.95;
  const folds = options.folds ?? 5;
  const rows = calibrationRows(records);
  const right = rows.filter((r) => r.correct).length;
  if (rows.length < 10 || right === 0 || right === rows.length) {
    throw new InvalidOptionError(
      "--records",
      "at least 10 scored proposals (confidence and meanTokenProbability), some right and some wrong",
      `${rows.length} scored, ${right} right`,
    );
  }
  const outOfFold = crossValidate(rows, folds);
  const best = bestThreshold(outOfFold, targetPrecision);
  const calibrator = Calibrator.fit(rows, L2, DELEGATE_CALIBRATION_INPUTS);
  return {
    format: "deputy-delegate-calibration",
    version: 1,
    model: options.model,
    confidenceMethod: options.confidenceMethod ?? "answer",
    calibrator: calibrator.toJSON(),
    fittedOn: rows.length,
    targetPrecision,
    recommendedMinConfidence: best ? Math.floor(best.threshold * 1000) / 1000 : 1,
    crossValidated: {
      folds,
      auroc: auroc(outOfFold) ?? null,
      ece: expectedCalibrationError(outOfFold),
      coverage: best?.coverage ?? 0,
      precision: best?.precision ?? null,
    },
  };
}

function calibrationRows(records: readonly LabelledProposal[]): CalibrationRow[] {
  const rows: CalibrationRow[] = [];
  for (const r of records) {
    const inputs = delegateCalibrationInputs(r);
    if (inputs) rows.push({ inputs, correct: r.correct });
  }
  return rows;
}

function crossValidate(rows: readonly CalibrationRow[], folds: number): ScoredOutcome[] {
  const outOfFold: ScoredOutcome[] = [];
  for (let k = 0; k < folds; k++) {
    const train = rows.filter((_, i) => i % folds !== k);
    const test = rows.filter((_, i) => i % folds === k);
    if (test.length === 0) continue;
    const fitted = Calibrator.fit(train, L2, DELEGATE_CALIBRATION_INPUTS);
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
