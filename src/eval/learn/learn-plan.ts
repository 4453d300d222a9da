import { encoderInput, type EncoderRecord } from "../../distill/encoder-input.js";
import type { EncoderInfo } from "../../distill/text-encoder.js";
import { encoderTrainingTexts } from "../../distill/train-with-encoder.js";
import type { TrainingExample } from "../../distill/training-examples.js";
import { InvalidOptionError } from "../../errors/invalid-option-error.js";
import type { DecisionCase } from "../decision-suite.js";
import { decisionHash, splitDecisions } from "./decision-split.js";
import type { DistilledModelData } from "../../distill/model-file.js";
import type { TextEncoder } from "../../distill/text-encoder.js";
import type { TrustModelData } from "../../distill/trust-model.js";
import type { Clock } from "../../runtime/clock.js";

/** The node's current model, and what it was trained on when that is known. */
export interface Champion {
  model: DistilledModelData;
  /** Content keys ({@link decisionHash}) of every input it trained on; undefined when unknown. */
  trainedOn?: ReadonlySet<string>;
  /**
   * The node's trust model, fitted for this model: a delegate node's gate judges the model by it, so it is
   * measured by it too.
   */
  trust?: TrustModelData;
}

/** Options of `learnNode`. */
export interface LearnNodeOptions {
  node: string;
  /** Labelled traces trained on and never held out (the traces `deputy distill` trains on: generated, a teacher's). */
  traces?: readonly TrainingExample[];
  /** The team's decisions (people's resolutions, accepted decisions): split into trained and held out. */
  decisions: readonly TrainingExample[];
  champion?: Champion;
  /** Precision the thresholds aim for and the promotion demands. Default 0.97. */
  targetPrecision?: number;
  /** The challenger's min_confidence is never below this. Default 0.8 (as `deputy distill`). */
  confidenceFloor?: number;
  /** Share of the decisions held out. Default 0.3. */
  heldOutShare?: number;
  /** Seed of the split, the folds and SGD. Default 1. */
  seed?: number;
  /** Points of the curve: models trained on growing shares of the training decisions (the last is the challenger), plus the traces alone. Default 3. */
  curvePoints?: number;
  /** A pretrained encoder to train with (as `deputy distill --encoder`); the caller closes it. */
  encoder?: TextEncoder;
  /**
   * The encoder the champion was trained with, when it is not `encoder` (a tuned reader replaces the node's
   * encoder, or `--encoder` names another file): the champion is measured with its own. Default `encoder`. The
   * caller closes it.
   */
  championEncoder?: TextEncoder;
  /** Called with a short line at each step (a progress line on a terminal). */
  onProgress?: (step: string) => void;
  /** @internal Clock of the model's `createdAt`. */
  _internal?: { now?: Clock };
}

/** The fewest examples training takes. */
export const MIN_TRAIN = 2;

/** The split, the held-out cases and the curve's sizes of a learning turn: what `learnNode` runs. */
export function planLearn(options: LearnPlanOptions) {
  const target = options.targetPrecision ?? 0.97;
  if (!(target > 0 && target < 1)) throw new RangeError(`targetPrecision must be in (0, 1), got ${target}`);
  const seed = options.seed ?? 1;
  const heldOutShare = options.heldOutShare ?? 0.3;
  if (!(heldOutShare > 0 && heldOutShare < 1))
    throw new RangeError(`heldOutShare must be in (0, 1), got ${heldOutShare}`);
  const curvePoints = Math.max(1, Math.floor(options.curvePoints ?? 3));
  const traces = options.traces ?? [];
  const split = splitDecisions(options.decisions, { seed, heldOutShare });
  // The training part must not hold an input of the held-out part (the same alert decided twice).
  const heldOutKeys = new Set(split.heldOut.map((d) => decisionHash(d.instruction, d.facts)));
  const trainDecisions = split.train;
  const trainTraces = traces.filter((t) => !heldOutKeys.has(decisionHash(t.instruction, t.facts)));
  const saw = options.champion?.trainedOn;
  const heldOut = saw
    ? split.heldOut.filter((d) => !saw.has(decisionHash(d.instruction, d.facts)))
    : split.heldOut;
  const cases = heldOut.map((d, i): DecisionCase => ({
    ...decisionCase(d, options.node),
    at: `held-out:${i + 1}`,
  }));
  const sizes = curveSizes(trainDecisions.length, curvePoints, trainTraces.length >= MIN_TRAIN);
  return { target, seed, split, saw, trainTraces, trainDecisions, heldOut, cases, sizes };
}

/** The options of {@link learnNode} that decide what it trains and measures on (no encoder, no callback). */
export type LearnPlanOptions = Omit<LearnNodeOptions, "encoder" | "championEncoder" | "onProgress">;

/**
 * What the challenger of a learning turn trains on: the traces and the training part of the decisions, never a
 * held-out one — what a reader tuned for this turn (`deputy learn --tune`) may read, so that the held-out
 * decisions stay unseen by every part of the challenger.
 */
export function learnTrainingExamples(options: LearnPlanOptions): TrainingExample[] {
  const { trainTraces, trainDecisions } = planLearn(options);
  return [...trainTraces, ...trainDecisions].filter((e) => e.call.name !== "");
}

/**
 * Every text {@link learnNode} will embed with this encoder — each curve point's training plan and the held-out
 * decisions under each model's encoder record, the champion's included unless `champion` is false (it is
 * measured with an encoder of its own) — so a caller can state and bound the time, and embed them once, first
 * (`embedAhead`).
 */
export function learnEncoderTexts(
  options: LearnPlanOptions,
  encoder: EncoderInfo,
  { champion = true }: { champion?: boolean } = {},
): string[] {
  const { target, seed, trainTraces, trainDecisions, cases, sizes } = planLearn(options);
  const texts = new Set<string>();
  const measured = (record: EncoderRecord) => {
    for (const c of cases) texts.add(encoderInput(record, c.instruction, c.facts));
  };
  if (champion && options.champion?.model.encoder) measured(options.champion.model.encoder);
  for (const size of sizes) {
    const examples = [...trainTraces, ...trainDecisions.slice(0, size)];
    if (examples.length < MIN_TRAIN) continue;
    const trainWith = trainOptions(options, trainDecisions.slice(0, size), target, seed);
    let planned;
    try {
      planned = encoderTrainingTexts(examples, trainWith, encoder);
    } catch (error) {
      if (InvalidOptionError.isInstance(error)) continue; // as train(): nothing to learn from
      throw error;
    }
    for (const t of planned.texts) texts.add(t);
    measured(planned.record);
  }
  return [...texts];
}

/** A training example as a decision to measure on. */
export function decisionCase(d: TrainingExample, node: string): DecisionCase {
  return { at: "", nodeId: node, instruction: d.instruction, facts: d.facts, tools: d.tools, call: d.call };
}

/** Growing prefixes of the training decisions, the whole part last; 0 first when the traces alone can train. */
function curveSizes(total: number, points: number, fromZero: boolean): number[] {
  const sizes = new Set<number>(fromZero && points > 1 ? [0] : []);
  for (let p = 1; p <= points; p++) sizes.add(Math.round((total * p) / points));
  sizes.add(total);
  return [...sizes].sort((a, b) => a - b);
}

/** The options of the training `deputy distill` runs, the given decisions choosing the threshold out of fold. */
export function trainOptions(
  options: LearnPlanOptions,
  validation: readonly TrainingExample[],
  targetPrecision: number,
  seed: number,
) {
  return {
    node: options.node,
    targetPrecision,
    ...(options.confidenceFloor === undefined ? {} : { confidenceFloor: options.confidenceFloor }),
    heldOutShare: 0,
    seed,
    ...(validation.length ? { validation: new Set(validation) } : {}),
    ...(options._internal ? { _internal: options._internal } : {}),
  };
}
