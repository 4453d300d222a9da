import { DistilledDelegate } from "../../distill/distilled-delegate.js";
import type { DistilledModelData } from "../../distill/model-file.js";
import type { EncoderInfo, TextEncoder } from "../../distill/text-encoder.js";
import { trainDistilled, type TrainDistilledResult } from "../../distill/train-distilled.js";
import { trainDistilledWithEncoder } from "../../distill/train-with-encoder.js";
import type { TrainingExample } from "../../distill/training-examples.js";
import { fitTrustModel, TrustModel, type TrustFit, type TrustModelData } from "../../distill/trust-model.js";
import { withTrust } from "../../delegate/proposal-trust.js";
import { InvalidOptionError } from "../../errors/invalid-option-error.js";
import type { DecisionCase } from "../decision-suite.js";
import { evaluateChain, type ChainScore } from "../evaluate-chain.js";
import { decisionHash } from "./decision-split.js";
import { MIN_TRAIN, planLearn, trainOptions, type LearnNodeOptions } from "./learn-plan.js";
import { promotionVerdict, type HeldOutStanding, type PromotionVerdict } from "./promotion-rule.js";

export {
  type Champion,
  type LearnNodeOptions,
  decisionCase,
  learnEncoderTexts,
  learnTrainingExamples,
  type LearnPlanOptions,
} from "./learn-plan.js";

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
      const { readerHead: _, ...ownHeads } = trained.model;
      const own = {
        ...ownHeads,
        recommendedMinConfidence: trained.ownMinConfidence ?? ownHeads.recommendedMinConfidence,
      };
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

/** The training `deputy distill` runs, or undefined when these examples cannot train a model (one class, say). */
async function train(
  examples: TrainingExample[],
  trainWith: ReturnType<typeof trainOptions> & { readerHead?: boolean },
  options: LearnNodeOptions,
): Promise<(TrainDistilledResult & { ownMinConfidence?: number }) | undefined> {
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
