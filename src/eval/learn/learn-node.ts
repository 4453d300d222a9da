import { DistilledDelegate } from "../../distill/distilled-delegate.js";
import type { DistilledModelData } from "../../distill/model-file.js";
import { encoderInput, type EncoderRecord } from "../../distill/encoder-input.js";
import type { EncoderInfo, TextEncoder } from "../../distill/text-encoder.js";
import { trainDistilled, type TrainDistilledResult } from "../../distill/train-distilled.js";
import { encoderTrainingTexts, trainDistilledWithEncoder } from "../../distill/train-with-encoder.js";
import type { TrainingExample } from "../../distill/training-examples.js";
import { fitTrustModel, TrustModel, type TrustFit, type TrustModelData } from "../../distill/trust-model.js";
import { withTrust } from "../../delegate/proposal-trust.js";
import { InvalidOptionError } from "../../errors/invalid-option-error.js";
import type { Clock } from "../../runtime/clock.js";
import type { DecisionCase } from "../decision-suite.js";
import { evaluateChain, type ChainScore } from "../evaluate-chain.js";
import { decisionHash, splitDecisions } from "./decision-split.js";
import { promotionVerdict, type HeldOutStanding, type PromotionVerdict } from "./promotion-rule.js";

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

/** Options of {@link learnNode}. */
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

/** One model measured on the held-out decisions at its gate threshold. */
export interface MeasuredModel extends HeldOutStanding {
  minConfidence: number;
  /**
   * Present when the model was measured through its trust model, as the gate will judge it: the trusted
   * probability held to this threshold, `minConfidence` staying the floor.
   */
  trustThreshold?: number;
  share: number;
  precision: number | null;
  wilsonUpper: number | null;
  /** Exact-call accuracy over all held-out decisions, gate or not. */
  exactAccuracy: number | null;
}

/** One point of the curve: the team's decisions trained on → the share decided at the target. */
export interface CurvePoint {
  decisions: number;
  share: number;
  precision: number | null;
  wilsonLower: number | null;
  minConfidence: number;
}

/** What {@link learnNode} found; nothing is written (see `applyLearnResult`). */
export interface LearnResult {
  node: string;
  targetPrecision: number;
  seed: number;
  counts: {
    traces: number;
    decisions: number;
    train: number;
    heldOut: number;
    /** Held-out decisions left out because the champion trained on them. */
    championSaw: number;
  };
  /** The challenger, when there was enough to train one (why not: `verdict.reason`). */
  challenger?: { model: DistilledModelData; trust: TrustFit; measured: MeasuredModel };
  /**
   * With a tuned reader: whether the challenger decides by the reader's head or by its own heads, and each as
   * measured on the held-out decisions (the head is kept only when it beats the own heads by the promotion rule).
   */
  readerHead?: {
    chosen: boolean;
    reason: string;
    head: { share: number; precision: number | null; wilsonLower: number | null };
    own: { share: number; precision: number | null; wilsonLower: number | null };
  };
  champion?: { measured: MeasuredModel; trainedOnKnown: boolean };
  curve: CurvePoint[];
  verdict: PromotionVerdict;
  /** Content keys of every input the challenger trained on (recorded with a promotion). */
  trainedOn: string[];
  /** The pretrained encoder the models were trained with (`options.encoder`), when one was. */
  encoder?: Pick<EncoderInfo, "name" | "sha256" | "dimension">;
}

/** The fewest examples training takes. */
const MIN_TRAIN = 2;

/**
 * One turn of the learning loop for a node: split the team's decisions (seeded, by content) into a training part
 * and a held-out part; train a challenger on the traces and the training part exactly as `deputy distill` does
 * (the team's decisions choose its threshold out of fold, at the target precision); fit its trust model from
 * those out-of-fold scores; measure challenger and champion through `evaluateChain` on the held-out decisions
 * neither trained on (what the champion trained on, when known, is left out for both); and judge the promotion
 * ({@link promotionVerdict}). Never throws on its decisions: too few to train or to measure is a verdict.
 */
export async function learnNode(options: LearnNodeOptions): Promise<LearnResult> {
  const { target, seed, split, saw, trainTraces, trainDecisions, heldOut, cases, sizes } = planLearn(options);
  const result: LearnResult = {
    node: options.node,
    targetPrecision: target,
    seed,
    counts: {
      traces: trainTraces.length,
      decisions: options.decisions.length,
      train: trainDecisions.length,
      heldOut: heldOut.length,
      championSaw: split.heldOut.length - heldOut.length,
    },
    curve: [],
    verdict: { promote: false, reason: "" },
    trainedOn: [],
    ...(options.encoder
      ? {
          encoder: {
            name: options.encoder.info.name,
            sha256: options.encoder.info.sha256,
            dimension: options.encoder.info.dimension,
          },
        }
      : {}),
  };
  const progress = options.onProgress ?? (() => undefined);
  if (options.champion) {
    progress("measuring the champion");
    const measured = await measure(
      options.champion.model,
      cases,
      options.championEncoder ?? options.encoder,
      options.champion.trust,
    );
    result.champion = { measured, trainedOnKnown: saw !== undefined };
  }
  for (const [p, size] of sizes.entries()) {
    // a call that names no tool teaches nothing (and no model file may hold a tool without a name)
    const examples = [...trainTraces, ...trainDecisions.slice(0, size)].filter((e) => e.call.name !== "");
    if (examples.length < MIN_TRAIN) continue;
    progress(
      `training ${p + 1}/${sizes.length}: ${size} decisions${trainTraces.length ? ` + ${trainTraces.length} traces` : ""}`,
    );
    // A tuned reader's head learned from every training decision: only the challenger, which trains on all of
    // them, may decide by it; a point of the curve keeps its own heads, or the curve would be flattered.
    const trained = await train(
      examples,
      {
        ...trainOptions(options, trainDecisions.slice(0, size), target, seed),
        readerHead: size === trainDecisions.length,
      },
      options,
    );
    if (!trained) continue;
    progress(`measuring ${p + 1}/${sizes.length} on ${cases.length} held-out decisions`);
    let measured = await measure(trained.model, cases, options.encoder);
    if (trained.model.readerHead) {
      // The reader's head decides the class only where it earns it: it must beat the level's own heads on the
      // held-out decisions by the rule a challenger must beat a champion by.
      const { readerHead: _, ...own } = trained.model;
      const ownMeasured = await measure(own, cases, options.encoder);
      const verdict = promotionVerdict(measured, ownMeasured, target);
      result.readerHead = {
        chosen: verdict.promote,
        reason: verdict.reason.replace(/champion/g, "own heads").replace(/challenger/g, "reader's head"),
        head: standing(measured),
        own: standing(ownMeasured),
      };
      if (!verdict.promote) {
        trained.model = own;
        measured = ownMeasured;
      }
    }
    result.curve.push({
      decisions: size,
      share: measured.share,
      precision: measured.precision,
      wilsonLower: measured.wilsonLower,
      minConfidence: measured.minConfidence,
    });
    if (size === trainDecisions.length) {
      // The out-of-fold scores are the level's own heads': a level deciding by a reader's head gets no trust model.
      const trust: TrustFit = trained.model.readerHead
        ? {
            status: "unsupported",
            decisions: trained.validationScores.length,
            needed: null,
            reason: "the level decides by its tuned reader's head, which no out-of-fold score measures",
            ignored: 0,
          }
        : fitTrustModel(
            trained.validationScores.map((s) => ({
              signals: { confidence: clamp01(s.score) },
              correct: s.correct,
            })),
            { targetPrecision: target },
          );
      // Judged as it would serve: through the trust model fitted with it, when one could be (the curve's point
      // above stays at the raw threshold, as every other point).
      const served =
        trust.status === "fitted"
          ? await measure(trained.model, cases, options.encoder, trust.model)
          : measured;
      result.challenger = { model: trained.model, trust, measured: served };
      result.trainedOn = [...new Set(examples.map((e) => decisionHash(e.instruction, e.facts)))].sort();
    }
  }
  if (!result.challenger) {
    result.verdict = {
      promote: false,
      reason: `too few decisions to train a challenger (${trainTraces.length + trainDecisions.length} to train on; at least ${MIN_TRAIN} labelled calls of more than one kind)`,
    };
    return result;
  }
  result.verdict = promotionVerdict(result.challenger.measured, result.champion?.measured, target);
  return result;
}

const standing = (m: MeasuredModel) => ({
  share: m.share,
  precision: m.precision,
  wilsonLower: m.wilsonLower,
});

/** The split, the held-out cases and the curve's sizes of a learning turn: what {@link learnNode} runs. */
function planLearn(options: LearnPlanOptions) {
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
function trainOptions(
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

/** The training `deputy distill` runs, or undefined when these examples cannot train a model (one class, say). */
async function train(
  examples: TrainingExample[],
  trainWith: ReturnType<typeof trainOptions> & { readerHead?: boolean },
  options: LearnNodeOptions,
): Promise<TrainDistilledResult | undefined> {
  try {
    return options.encoder
      ? await trainDistilledWithEncoder(examples, trainWith, options.encoder)
      : trainDistilled(examples, trainWith);
  } catch (error) {
    // The trainer refuses what it cannot learn from with an InvalidOptionError; anything else is a fault.
    if (InvalidOptionError.isInstance(error)) return undefined;
    throw error;
  }
}

/**
 * A model at its recommended threshold, as a one-level chain on the held-out decisions; with `trust`, judged by
 * the trust model as a delegate node's gate judges it (the threshold a floor).
 */
async function measure(
  model: DistilledModelData,
  cases: readonly DecisionCase[],
  encoder: TextEncoder | undefined,
  trust?: TrustModelData,
): Promise<MeasuredModel> {
  const raw = new DistilledDelegate({ model, ...(model.encoder && encoder ? { encoder } : {}) });
  const delegate = trust ? withTrust(raw, new TrustModel(trust)) : raw;
  const minConfidence = model.recommendedMinConfidence;
  let score: ChainScore;
  try {
    score = await evaluateChain([{ delegate, minConfidence }], cases);
  } finally {
    await delegate.close();
  }
  const level = score.levels[0]!;
  return {
    minConfidence,
    records: score.records,
    decided: score.decided,
    correct: score.correct,
    share: score.decidedShare,
    precision: score.precision,
    wilsonLower: score.precisionInterval?.[0] ?? null,
    wilsonUpper: score.precisionInterval?.[1] ?? null,
    exactAccuracy: level.exactAccuracy,
    ...(trust ? { trustThreshold: trust.threshold } : {}),
  };
}

const clamp01 = (v: number) => (Number.isFinite(v) ? Math.min(1, Math.max(0, v)) : 0);
