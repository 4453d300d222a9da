import { InvalidOptionError } from "../errors/invalid-option-error.js";
import { Calibrator, type CalibrationRow } from "../confidence/calibrator.js";
import type { ScoredOutcome } from "../confidence/score-metrics.js";
import {
  recommendThreshold,
  REPORT_THRESHOLDS,
  thresholdTable,
  type ThresholdPoint,
} from "../confidence/threshold.js";
import { CALIBRATION_INPUTS } from "./calibration-inputs.js";
import { DEFAULT_CONFIDENCE_FLOOR } from "./confidence-floor.js";
import { DistilledPredictor, type Prediction } from "./distilled-predictor.js";
import { fitPredictor } from "./fit-predictor.js";
import { DEFAULT_FEATURES, prepareInput, type FeatureConfig } from "./input-features.js";
import { MODEL_FORMAT, MODEL_VERSION, type CrossCheckData, type DistilledModelData } from "./model-file.js";
import { encoderInput, type TrainingEmbeddings } from "./encoder-input.js";
import { planTraining, type PlanOptions, type TrainingPlan } from "./training-plan.js";
import type { SgdOptions } from "./sgd-options.js";
import { exactMatch, type TrainingExample } from "./training-examples.js";
import { canonicalJson } from "../runtime/canonical-json.js";
import type { Clock } from "../runtime/clock.js";

/** Options of {@link trainDistilled}. */
export interface TrainDistilledOptions extends Pick<PlanOptions, "maxVariantExamples"> {
  /** The plan node the model is for (recorded in the file). */
  node: string;
  /**
   * Examples worded like the traffic to come, instead of a random split of `examples`: half of them (chosen by the
   * seed) tune the calibrator and the recommended threshold, the other half is only measured.
   */
  heldOut?: readonly TrainingExample[];
  /**
   * Training examples worded like the traffic to come — the resolved escalations — whose out-of-fold predictions
   * (made by models that did not train on them) choose the recommended threshold and weigh in the calibrator as
   * much as all other out-of-fold rows, instead of the tuning half of `heldOut`. They are still trained on. Used
   * when there are at least {@link MIN_VALIDATION} of them.
   */
  validation?: ReadonlySet<TrainingExample>;
  /** Share of `examples` held out for measuring when `heldOut` is not given. Default 0.2. */
  heldOutShare?: number;
  /** Precision the recommended `min_confidence` aims for. Default 0.98. */
  targetPrecision?: number;
  /**
   * The recommended `min_confidence` is never below this calibrated confidence, whatever the rows that choose it
   * show (they are few, and worded more easily than the traffic). Default {@link DEFAULT_CONFIDENCE_FLOOR} (0.8);
   * 0 for the bare rule.
   */
  confidenceFloor?: number;
  /** Folds for the out-of-fold predictions the calibrator learns from. Default 4. */
  folds?: number;
  /** Seed of splits, folds and SGD order. Default 1. */
  seed?: number;
  features?: FeatureConfig;
  sgd?: SgdOptions;
  /**
   * Pretrained-encoder vectors of every instruction (and out-of-domain variant) the plan uses; see
   * {@link trainDistilledWithEncoder}, which computes them.
   */
  embeddings?: TrainingEmbeddings;
  /** @internal The plan the embeddings were computed for. */
  _plan?: TrainingPlan;
  /**
   * @internal An n-gram-only model trained on the same plan, whose call must agree (see `CrossCheckData`), with
   * its calls on the rows that choose the threshold and on the measured rows, in the same order as this training's.
   */
  _crossCheck?: {
    data: CrossCheckData;
    choiceCalls: string[];
    validationCalls: string[];
    tuningCalls: string[];
    measuredCalls: string[];
  };
  /** @internal Clock for `createdAt`. */
  _internal?: { now?: Clock };
}

/** A trained model with what was measured while training it. */
export interface TrainDistilledResult {
  model: DistilledModelData;
  /** Exact-match accuracy on the held-out examples (`null` when there are none). */
  heldOutAccuracy: number | null;
  /** Coverage and precision on the held-out examples, at the report thresholds and the recommended one. */
  heldOutTable: ThresholdPoint[];
  /** The same on out-of-fold predictions of the training examples (where the threshold was chosen). */
  calibrationTable: ThresholdPoint[];
  recommendedMinConfidence: number;
  trainingExamples: number;
  /** Held-out examples measured (half of `heldOut` when it was given). */
  heldOutExamples: number;
  /** Held-out examples that tuned the calibrator and the threshold (the other half of `heldOut`; 0 without it). */
  tuningExamples: number;
  /** Training examples whose out-of-fold predictions chose the threshold (see `validation`; 0 when none did). */
  validationExamples: number;
  /** The calibrated predictions the threshold was chosen on (tuning half, validation or out-of-fold rows). */
  choiceScores: ScoredOutcome[];
  /** Out-of-fold scores of every `validation` example, however few (the threshold uses them from 20 on). */
  validationScores: ScoredOutcome[];
  /** Scores of the `heldOut` tuning half by the final model (empty without `heldOut`). */
  tuningScores: ScoredOutcome[];
  /** The calls predicted on those rows and on the measured ones (for a cross-check; see `_crossCheck`). */
  choiceCalls: string[];
  validationCalls: string[];
  tuningCalls: string[];
  measuredCalls: string[];
}

const OOD_WEIGHT = 0.25;
const callKey = (p: Prediction) => JSON.stringify([p.name, canonicalJson(p.arguments)]);
type Row = { inputs: number[]; correct: boolean; call: string };
/** Fewer validation examples than this do not choose the threshold (the `heldOut` tuning half does). */
export const MIN_VALIDATION = 20;

function embeddingOf(
  embeddings: TrainingEmbeddings,
  instruction: string,
  facts: Record<string, unknown>,
): Float32Array {
  const text = encoderInput(embeddings.encoder, instruction, facts);
  const vector = embeddings.vectors.get(text);
  if (!vector) throw new InvalidOptionError("embeddings", "a vector for every instruction", text);
  return vector;
}

/**
 * Trains a distilled model: (1) hold out a share of the examples for measuring only — or, when `heldOut` is
 * given, split it into a tuning half and a measured half; (2) k-fold over the training examples: fit on k−1
 * folds, predict the k-th; (3) fit the final heads on all the training examples; (4) fit the calibrator on the
 * out-of-fold predictions, made-up out-of-domain inputs counted as wrong calls, and the tuning half (weighted to
 * count as much as the out-of-fold rows); (5) recommend the smallest `min_confidence` reaching the target
 * precision on the tuning half (on the out-of-fold predictions without one); (6) measure exact-match accuracy,
 * coverage and precision on the measured examples, which took no part in any of it.
 */
export function trainDistilled(
  examples: readonly TrainingExample[],
  options: TrainDistilledOptions,
): TrainDistilledResult {
  const seed = options.seed ?? 1;
  const targetPrecision = options.targetPrecision ?? 0.98;
  if (!(targetPrecision > 0 && targetPrecision <= 1))
    throw new InvalidOptionError("targetPrecision", "a number in (0, 1]", targetPrecision);
  const confidenceFloor = options.confidenceFloor ?? DEFAULT_CONFIDENCE_FLOOR;
  if (!(confidenceFloor >= 0 && confidenceFloor <= 1))
    throw new InvalidOptionError("confidenceFloor", "a number in [0, 1]", confidenceFloor);
  const plan = options._plan ?? planTraining(examples, options);
  const { train, heldOut, tuning, folds, order } = plan;
  const fitOptions = {
    ...(options.features ? { features: options.features } : {}),
    sgd: { seed, ...options.sgd },
  };

  const config = options.features ?? DEFAULT_FEATURES;
  const embeddings = options.embeddings;
  const prep = (instruction: string, facts: Record<string, unknown>) =>
    prepareInput(instruction, facts, config, embeddings && embeddingOf(embeddings, instruction, facts));
  const inputs = train.map((e) => prep(e.instruction, e.facts));
  const rows: CalibrationRow[] = [];
  const outOfFold: Row[] = [];
  const validationRows: Row[] = [];
  for (let f = 0; f < folds; f++) {
    const inFold = new Set(order.filter((_, i) => i % folds === f));
    const keep = (_: unknown, i: number) => !inFold.has(i);
    const fitted = fitPredictor(train.filter(keep), { ...fitOptions, inputs: inputs.filter(keep) });
    const predictor = new DistilledPredictor(fitted.predictor);
    for (const i of inFold) {
      const e = train[i]!;
      const prediction = predictor.predict(inputs[i]!);
      const row = {
        inputs: prediction.calibrationInputs,
        correct: exactMatch(prediction, e.call),
        call: callKey(prediction),
      };
      outOfFold.push(row);
      rows.push(row);
      if (options.validation?.has(e)) validationRows.push(row);
      for (const variant of plan.variants[i]!) {
        const ood = predictor.predict(prep(variant, e.facts));
        rows.push({ inputs: ood.calibrationInputs, correct: false, weight: OOD_WEIGHT * plan.variantWeight });
      }
    }
  }
  const final = fitPredictor(train, { ...fitOptions, inputs });
  const raw = new DistilledPredictor(final.predictor);
  const scoreRows = (set: readonly TrainingExample[]): Row[] =>
    set.map((e) => {
      const p = raw.predict(prep(e.instruction, e.facts));
      return { inputs: p.calibrationInputs, correct: exactMatch(p, e.call), call: callKey(p) };
    });
  // Held-out examples the caller gave are worded like the traffic to come: half of them tune the calibrator and
  // the threshold, the other half is only measured.
  // Resolved escalations are the traffic itself: when there are enough, their out-of-fold predictions choose.
  const validating = validationRows.length >= MIN_VALIDATION;
  const tuningHalf = scoreRows(tuning);
  const tuningRows = validating ? validationRows : tuningHalf;
  // As much say as the out-of-fold rows: the calibrator must fit the traffic to come, not only familiar wording.
  const tuningWeight = Math.max(1, outOfFold.length / Math.max(1, tuningRows.length));
  const calibrator = Calibrator.fit(
    [...rows, ...tuningRows.map((r) => ({ ...r, weight: tuningWeight }))],
    0.01,
    CALIBRATION_INPUTS,
  );
  // With a cross-check, a call the n-gram-only model does not propose as well gets confidence 0.
  const check = options._crossCheck;
  const score =
    (otherCalls?: readonly string[]) =>
    (r: Row, i: number): ScoredOutcome => ({
      score: otherCalls && otherCalls[i] !== r.call ? 0 : calibrator.confidence(r.inputs),
      correct: r.correct,
    });
  const calibrated = outOfFold.map(score());
  const validationScores = validationRows.map(score(check?.validationCalls));
  const tuningScores = tuningHalf.map(score(check?.tuningCalls));
  const choiceRows = tuningRows.length ? tuningRows : outOfFold;
  const choiceScores = choiceRows.map(score(check?.choiceCalls));
  const recommended = recommendThreshold(choiceScores, targetPrecision, confidenceFloor);
  const measuredRows = scoreRows(heldOut);
  const measured = measuredRows.map(score(check?.measuredCalls));
  const thresholds = [...new Set([...REPORT_THRESHOLDS, recommended])].sort((a, b) => a - b);
  const heldOutTable = thresholdTable(measured, thresholds);
  const atRecommended = heldOutTable.find((t) => t.threshold === recommended)!;
  const heldOutAccuracy = measured.length ? measured.filter((m) => m.correct).length / measured.length : null;

  const model: DistilledModelData = {
    format: MODEL_FORMAT,
    version: MODEL_VERSION,
    node: options.node,
    createdAt: new Date(options._internal?.now?.() ?? Date.now()).toISOString(),
    tools: final.tools,
    factKeys: final.factKeys,
    features: final.predictor.features,
    toolHead: final.predictor.toolHead,
    arguments: final.predictor.arguments,
    familiarity: final.predictor.familiarity,
    ...(embeddings ? { encoder: embeddings.encoder } : {}),
    calibration: calibrator.toJSON(),
    ...(check ? { crossCheck: check.data } : {}),
    recommendedMinConfidence: recommended,
    training: {
      examples: train.length,
      heldOut: heldOut.length,
      tuning: validating ? 0 : tuning.length,
      ...(validating ? { validation: validationRows.length } : {}),
      heldOutAccuracy,
      targetPrecision,
      confidenceFloor,
      heldOutCoverage: measured.length ? atRecommended.coverage : null,
      heldOutPrecision: measured.length ? atRecommended.precision : null,
      seed,
    },
  };
  return {
    model,
    heldOutAccuracy,
    heldOutTable,
    calibrationTable: thresholdTable(calibrated, thresholds),
    recommendedMinConfidence: recommended,
    trainingExamples: train.length,
    heldOutExamples: heldOut.length,
    tuningExamples: validating ? 0 : tuning.length,
    validationExamples: validating ? validationRows.length : 0,
    choiceScores,
    validationScores,
    tuningScores,
    choiceCalls: choiceRows.map((r) => r.call),
    validationCalls: validationRows.map((r) => r.call),
    tuningCalls: tuningHalf.map((r) => r.call),
    measuredCalls: measuredRows.map((r) => r.call),
  };
}
