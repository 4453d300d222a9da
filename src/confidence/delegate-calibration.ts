/**
 * The per-model calibration of an LLM delegate's confidence (`deputy calibrate` writes it, `CalibratedDelegate`
 * reads it): its file format, the inputs it reads from a proposal, and the calibrated score.
 */
import { readFileSync } from "node:fs";
import { InvalidOptionError } from "../errors/invalid-option-error.js";
import { CONFIDENCE_METHODS, type ConfidenceMethod } from "./answer-confidence.js";
import { Calibrator, logit, type CalibratorData } from "./calibrator.js";
import type { ProposalContext } from "./proposal-context.js";

/** The scores of a proposal a calibration reads (a delegate's `Proposal` has them). */
export interface ProposalScores {
  /** The backend's confidence, `null` when unscored. */
  confidence: number | null;
  /** The mean probability of the generated tokens, when the backend measured it. */
  meanTokenProbability?: number;
}

/**
 * The scores a delegate calibration reads, in order: logits of the confidence (named for the choice confidence
 * it first was; the file's `confidenceMethod` says which) and of the mean token probability.
 */
export const DELEGATE_CALIBRATION_INPUTS = ["choiceLogit", "meanTokenLogit"] as const;

/**
 * A calibration fitted `--with-context` reads the scores and the proposal's context: the log of the number of
 * candidate tools and the share of argument values found verbatim in the input (proposal-context.ts).
 */
export const CONTEXT_CALIBRATION_INPUTS = [
  ...DELEGATE_CALIBRATION_INPUTS,
  "logTools",
  "verbatimShare",
] as const;

/** A per-model calibration file, written by `deputy calibrate` (see docs/quality.md). */
export interface DelegateCalibrationFile {
  format: "deputy-delegate-calibration";
  version: 1;
  /** The model it was fitted for (a file name; a calibration only holds for the model and prompt it saw). */
  model: string;
  /**
   * The confidence method the labelled proposals were scored with; the delegate it wraps must use the same.
   * Files written before methods existed lack it and mean `"choice"`.
   */
  confidenceMethod?: ConfidenceMethod;
  calibrator: CalibratorData;
  /** Labelled proposals it was fitted on. */
  fittedOn: number;
  /** The precision `recommendedMinConfidence` reached out of fold. */
  targetPrecision: number;
  /** The lowest `min_confidence` that reached `targetPrecision` out of fold (1 when none did). */
  recommendedMinConfidence: number;
  /** Out-of-fold (k-fold cross-validated) quality of the calibrated score. */
  crossValidated: {
    folds: number;
    auroc: number | null;
    ece: number;
    coverage: number;
    precision: number | null;
  };
}

/**
 * The calibration inputs of a proposal (with `withContext`, also its context), or `undefined` when it lacks a
 * score or the context (then it stays unscored).
 */
export function delegateCalibrationInputs(
  proposal: ProposalScores,
  context?: ProposalContext,
  withContext = false,
): number[] | undefined {
  if (proposal.confidence === null || proposal.meanTokenProbability === undefined) return undefined;
  const scores = [logit(proposal.confidence), logit(proposal.meanTokenProbability)];
  if (!withContext) return scores;
  if (!context || !Number.isFinite(context.tools) || !Number.isFinite(context.verbatimShare))
    return undefined;
  return [...scores, Math.log(Math.max(1, context.tools)), context.verbatimShare];
}

/** Whether a calibration file reads the proposal's context ({@link CONTEXT_CALIBRATION_INPUTS}). */
export function readsContext(file: DelegateCalibrationFile): boolean {
  return (file.calibrator.inputs ?? []).length === CONTEXT_CALIBRATION_INPUTS.length;
}

/** Reads and checks a calibration file; anything else is an {@link InvalidOptionError} naming the file. */
export function readDelegateCalibration(path: string): DelegateCalibrationFile {
  let file: DelegateCalibrationFile;
  try {
    file = JSON.parse(readFileSync(path, "utf8")) as DelegateCalibrationFile;
  } catch {
    throw new InvalidOptionError("calibration", "a readable calibration JSON file", path);
  }
  const c = file?.calibrator;
  const names = [DELEGATE_CALIBRATION_INPUTS, CONTEXT_CALIBRATION_INPUTS].find(
    (known) => JSON.stringify(known) === JSON.stringify(c?.inputs ?? DELEGATE_CALIBRATION_INPUTS),
  );
  const numbers = (xs: unknown) =>
    names !== undefined && Array.isArray(xs) && xs.length === names.length && xs.every(Number.isFinite);
  if (
    file?.format !== "deputy-delegate-calibration" ||
    file.version !== 1 ||
    c?.method !== "logistic" ||
    !numbers(c.weights) ||
    !numbers(c.mean) ||
    !numbers(c.scale) ||
    !Number.isFinite(c.bias) ||
    (file.confidenceMethod !== undefined && !CONFIDENCE_METHODS.includes(file.confidenceMethod))
  ) {
    throw new InvalidOptionError("calibration", "a deputy-delegate-calibration file of version 1", path);
  }
  return file;
}

/**
 * Maps a proposal's scores (and, for a file fitted with context, its `context`) to the calibrated probability
 * that it is exactly right; null when an input is missing.
 */
export function calibratedConfidence(
  file: DelegateCalibrationFile,
  proposal: ProposalScores,
  context?: ProposalContext,
): number | null {
  const inputs = delegateCalibrationInputs(proposal, context, readsContext(file));
  return inputs ? new Calibrator(file.calibrator).confidence(inputs) : null;
}
