import { InvalidOptionError } from "../errors/invalid-option-error.js";
import { countFamiliarity } from "./familiarity.js";
import { DEFAULT_FEATURES, prepareInput, type FeatureConfig } from "./input-features.js";
import { oodVariants } from "./ood-variants.js";
import { seededRandom, shuffle } from "./random.js";
import type { TrainingExample } from "./training-examples.js";

/** How the examples are used: which train, which tune, which are only measured, the folds and made-up inputs. */
export interface TrainingPlan {
  train: TrainingExample[];
  /** Measured only. */
  heldOut: TrainingExample[];
  /** Tune the calibrator and the threshold (half of a given held-out set). */
  tuning: TrainingExample[];
  folds: number;
  /** Indices of `train` in fold order: index `i` of this list is in fold `i % folds`. */
  order: number[];
  /**
   * Per training example, the out-of-domain variants made from it (counted as wrong calls when calibrating);
   * empty for examples past `maxVariantExamples`.
   */
  variants: string[][];
  /** Weight of each variant row, so that all variants together weigh as if every example had them. */
  variantWeight: number;
}

/** The options {@link planTraining} reads. */
export interface PlanOptions {
  heldOut?: readonly TrainingExample[];
  heldOutShare?: number;
  folds?: number;
  seed?: number;
  features?: FeatureConfig;
  /**
   * Make out-of-domain variants from at most this many training examples (spread over the folds), each row
   * weighted up to make up for the rest. With an encoder every variant must be embedded: this bounds its cost.
   * Default: all.
   */
  maxVariantExamples?: number;
}

/**
 * Splits the examples (a random share held out, or the given held-out set halved into tuning and measured),
 * orders them into folds, and makes each training example's out-of-domain variants from the familiarity of the
 * other folds — everything random in training but SGD, from one seed, so an encoder can embed every text first.
 */
export function planTraining(examples: readonly TrainingExample[], options: PlanOptions): TrainingPlan {
  const random = seededRandom(options.seed ?? 1);
  let train = [...examples];
  let heldOut = options.heldOut ? shuffle([...options.heldOut], random) : [];
  let tuning: TrainingExample[] = [];
  if (options.heldOut) {
    tuning = heldOut.filter((_, i) => i % 2 === 0);
    heldOut = heldOut.filter((_, i) => i % 2 === 1);
  } else {
    shuffle(train, random);
    const n = Math.floor(train.length * (options.heldOutShare ?? 0.2));
    heldOut = train.slice(0, n);
    train = train.slice(n);
  }
  if (train.length < 2)
    throw new InvalidOptionError("examples", "at least 2 labelled examples to train on", train.length);
  const config = options.features ?? DEFAULT_FEATURES;
  const words = train.map((e) => prepareInput(e.instruction, e.facts, config).words);
  const folds = Math.max(2, Math.min(options.folds ?? 4, train.length));
  const order = shuffle(
    train.map((_, i) => i),
    random,
  );
  const variants: string[][] = train.map(() => []);
  const withVariants = Math.min(train.length, options.maxVariantExamples ?? train.length);
  for (let f = 0; f < folds; f++) {
    const inFold = order.filter((_, i) => i % folds === f && i < withVariants);
    const excluded = new Set(order.filter((_, i) => i % folds === f));
    const familiarity = countFamiliarity(words.filter((_, i) => !excluded.has(i)));
    for (const i of inFold) variants[i] = oodVariants(train[i]!.instruction, familiarity, random);
  }
  return { train, heldOut, tuning, folds, order, variants, variantWeight: train.length / withVariants };
}
