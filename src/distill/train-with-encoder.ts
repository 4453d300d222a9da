import { commonPrefix, encoderInput, type EncoderRecord } from "./encoder-input.js";
import type { EncoderInfo, TextEncoder } from "./text-encoder.js";
import { readerHeadBeside } from "./reader-head.js";
import { trainDistilled, type TrainDistilledOptions, type TrainDistilledResult } from "./train-distilled.js";
import { planTraining } from "./training-plan.js";
import type { TrainingExample } from "./training-examples.js";

/**
 * Out-of-domain variants are made from at most this many training examples: each costs an embedding, and a few
 * hundred teach the calibrator as much as thousands (it has four inputs).
 */
const MAX_VARIANT_EXAMPLES = 256;

/** Seconds spent embedding and fitting, as {@link trainDistilledWithEncoder} measured them. */
export interface EncoderTrainingTimes {
  embedSeconds: number;
  fitSeconds: number;
  /** Distinct texts embedded. */
  texts: number;
}

/** Options of {@link trainDistilledWithEncoder}. */
export interface TrainWithEncoderOptions extends TrainDistilledOptions {
  /**
   * Also train an n-gram-only model on the same plan and accept a call only when it proposes the same call
   * (`crossCheck` in the model file); the threshold is chosen with that rule. Default true.
   */
  crossCheck?: boolean;
  /**
   * What the encoder embeds: `"instruction"` (without the shared opening) or `"task"` (the facts and the
   * instruction, {@link taskText}). Default: `"task"` for a decoder model (pooling `"last"`), else `"instruction"`.
   */
  encoderInput?: "instruction" | "task";
  /**
   * Whether a tuned reader's label head recorded beside the encoder's file ({@link readerHeadBeside}) becomes the
   * model's `readerHead` (its class decision). Default true.
   */
  readerHead?: boolean;
}

/**
 * Trains a distilled model whose heads read a pretrained encoder's vector of the instruction beside the n-gram
 * features: plans the training (splits, folds, out-of-domain variants), embeds every instruction it will see once,
 * then trains as {@link trainDistilled} does. The model records the encoder (name, checksum, dimension) and the
 * instruction opening every training input shared, which is cut off before embedding. With `crossCheck` (the
 * default), an n-gram-only model trained on the same plan must propose the same call, or the confidence is 0:
 * two views of the text that rarely make the same mistake. On a tuned reader with a head recorded beside it, the
 * head decides the class (`readerHead`) and the model gates at the target precision (at least the floor);
 * `ownMinConfidence` is then the threshold its own heads chose out of fold.
 */
export async function trainDistilledWithEncoder(
  examples: readonly TrainingExample[],
  options: TrainWithEncoderOptions,
  encoder: TextEncoder,
): Promise<TrainDistilledResult & { times: EncoderTrainingTimes; ownMinConfidence?: number }> {
  const { plan, record, texts: list } = planEncoderTraining(examples, options, encoder.info);
  const started = performance.now();
  const vectors = await encoder.embed(list);
  const embedSeconds = (performance.now() - started) / 1000;
  const fitStarted = performance.now();
  const ngrams =
    options.crossCheck === false ? undefined : trainDistilled(examples, { ...options, _plan: plan });
  const result = trainDistilled(examples, {
    ...options,
    _plan: plan,
    ...(ngrams && {
      _crossCheck: {
        data: {
          toolHead: ngrams.model.toolHead,
          arguments: ngrams.model.arguments,
          calibration: ngrams.model.calibration,
        },
        choiceCalls: ngrams.choiceCalls,
        validationCalls: ngrams.validationCalls,
        tuningCalls: ngrams.tuningCalls,
        measuredCalls: ngrams.measuredCalls,
      },
    }),
    embeddings: {
      encoder: record,
      vectors: new Map(list.map((t, i) => [t, vectors[i]!])),
    },
  });
  // A tuned reader's own head decides the class, when it was tuned on the texts this model embeds (same prefix).
  const head =
    options.readerHead !== false && encoder.info.path
      ? readerHeadBeside(encoder.info.path, encoder.info.sha256)
      : undefined;
  const tools = new Set(result.model.tools.map((t) => t.name));
  if (
    head &&
    record.input === "task" &&
    head.prefix === record.prefix &&
    head.weights[0]!.length === record.dimension &&
    head.labels.every((l) => l.name === null || tools.has(l.name))
  ) {
    // The head learned from every training decision, so no out-of-fold score of it exists to choose a threshold
    // on; its probability is read as precision instead — it gates at the target precision (on the alert
    // development sets it never trained on, a head level at 0.97 decided 57-74 % of each set at 97.0-100 %).
    const headThreshold = Math.max(
      result.model.training.confidenceFloor ?? 0,
      result.model.training.targetPrecision,
    );
    return {
      ...result,
      model: { ...result.model, readerHead: head, recommendedMinConfidence: headThreshold },
      recommendedMinConfidence: headThreshold,
      ownMinConfidence: result.recommendedMinConfidence,
      times: { embedSeconds, fitSeconds: (performance.now() - fitStarted) / 1000, texts: list.length },
    };
  }
  return {
    ...result,
    times: { embedSeconds, fitSeconds: (performance.now() - fitStarted) / 1000, texts: list.length },
  };
}

/** What {@link trainDistilledWithEncoder} will embed, and the encoder record its model will carry. */
export interface EncoderTrainingTexts {
  record: EncoderRecord;
  /** Every distinct text training embeds: the inputs of the plan and their out-of-domain variants. */
  texts: string[];
}

/**
 * The texts {@link trainDistilledWithEncoder} embeds for these examples and options (the same seeded plan), so a
 * caller can count them, estimate the time and embed them first (`embedAhead`) before training starts.
 */
export function encoderTrainingTexts(
  examples: readonly TrainingExample[],
  options: TrainWithEncoderOptions,
  encoder: EncoderInfo,
): EncoderTrainingTexts {
  const { record, texts } = planEncoderTraining(examples, options, encoder);
  return { record, texts };
}

function planEncoderTraining(
  examples: readonly TrainingExample[],
  options: TrainWithEncoderOptions,
  info: EncoderInfo,
) {
  const plan = planTraining(examples, { maxVariantExamples: MAX_VARIANT_EXAMPLES, ...options });
  const prefix = commonPrefix(plan.train.map((e) => e.instruction));
  const input = options.encoderInput ?? (info.pooling === "last" ? "task" : "instruction");
  const record: EncoderRecord = { ...info, prefix, ...(input === "task" ? { input } : {}) };
  const texts = new Set<string>();
  for (const e of [...plan.train, ...plan.heldOut, ...plan.tuning])
    texts.add(encoderInput(record, e.instruction, e.facts));
  plan.variants.forEach((variants, i) => {
    for (const v of variants) texts.add(encoderInput(record, v, plan.train[i]!.facts));
  });
  return { plan, record, texts: [...texts] };
}
