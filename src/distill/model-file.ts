import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { z } from "zod";
import { readerHeadSchema, type ReaderHeadData } from "./reader-head.js";
import { DistilledModelError } from "../errors/distilled-model-error.js";
import type { ToolSpec } from "../delegate/protocol.js";
import type { CalibratorData } from "../confidence/calibrator.js";
import type { ClassHeadData } from "./class-head.js";
import type { EncoderRecord } from "./encoder-input.js";
import type { FamiliarityData } from "./familiarity.js";
import type { FeatureConfig } from "./input-features.js";
import type { NumberHeadData } from "./number-head.js";
import type { ClassifierData } from "./softmax-classifier.js";
import type { SpanHeadData } from "./span-head.js";

/** The `format` field of every distilled model file. */
export const MODEL_FORMAT = "deputy-distilled";
/** The model file version this code reads and writes. */
export const MODEL_VERSION = 1;
/** The tool head's class for declining. */
export const DECLINE_CLASS = "<decline>";

/** How one argument of one tool is predicted. */
export type ArgumentHeadData = ClassHeadData | SpanHeadData | NumberHeadData;

/** Held-out figures the trainer measured, kept in the file so a reader knows what the model is worth. */
export interface TrainingSummary {
  /** Examples trained on (after removing duplicates and the held-out split). */
  examples: number;
  /** Held-out examples measured. */
  heldOut: number;
  /** Held-out examples that tuned the calibrator and the threshold (half of a given held-out set). */
  tuning: number;
  /** Training examples (resolved escalations) whose out-of-fold predictions chose the threshold instead. */
  validation?: number;
  /** Exact-match accuracy on the held-out examples (tool and every argument). */
  heldOutAccuracy: number | null;
  /** Precision the recommended threshold was chosen for. */
  targetPrecision: number;
  /** The least the recommended threshold could be (absent in files written before the floor). */
  confidenceFloor?: number;
  /** Coverage and precision on the held-out examples at the recommended threshold. */
  heldOutCoverage: number | null;
  heldOutPrecision: number | null;
  seed: number;
}

/**
 * An n-gram-only model trained on the same traces beside an encoder model (its heads and calibrator; features and
 * familiarity are the encoder model's). The encoder model's call is accepted only when this one proposes the same
 * call: otherwise its confidence is 0.
 */
export interface CrossCheckData {
  toolHead: ClassifierData;
  arguments: Record<string, Record<string, ArgumentHeadData>>;
  calibration: CalibratorData;
}

/**
 * A distilled model as stored in its JSON file: inspectable (the features with their weights per class, the
 * tools it learned, its calibration and its measured quality) and versioned.
 */
export interface DistilledModelData {
  format: typeof MODEL_FORMAT;
  version: typeof MODEL_VERSION;
  /** The plan node it was trained for. */
  node: string;
  createdAt: string;
  /** The tools as they were when the traces were made; a node whose tools changed incompatibly is refused. */
  tools: ToolSpec[];
  /** Fact keys every training input had; an input without one of them is refused. */
  factKeys: string[];
  features: FeatureConfig;
  /** Tool choice: classes are tool names, plus `<decline>` when the traces had declines. */
  toolHead: ClassifierData;
  /** Per tool, per argument: how it is predicted. */
  arguments: Record<string, Record<string, ArgumentHeadData>>;
  familiarity: FamiliarityData;
  /**
   * The pretrained encoder whose vectors are features (`e:<i>`) of the heads; absent for an n-gram-only model. The
   * model refuses to run with any other encoder.
   */
  encoder?: EncoderRecord;
  calibration: CalibratorData;
  /** With an encoder: the n-gram-only model whose call must agree (see {@link CrossCheckData}). */
  crossCheck?: CrossCheckData;
  /**
   * With a tuned reader as the encoder (`deputy learn --tune`): the reader's own label head, which decides the tool
   * and its chosen arguments in place of `toolHead` and the class heads ({@link ReaderHeadData}).
   */
  readerHead?: ReaderHeadData;
  /** The smallest `min_confidence` that reached the target precision on out-of-fold predictions. */
  recommendedMinConfidence: number;
  training: TrainingSummary;
}

const finite = z.number().refine(Number.isFinite, "must be a finite number");
const classifierSchema = z
  .strictObject({ classes: z.array(z.string()).min(1), weights: z.record(z.string(), z.array(finite)) })
  .superRefine((c, ctx) => {
    for (const [f, w] of Object.entries(c.weights)) {
      if (w.length !== c.classes.length) {
        ctx.addIssue({
          code: "custom",
          path: ["weights", f],
          message: `expected ${c.classes.length} weights, got ${w.length}`,
        });
        return;
      }
    }
  });
const rankerSchema = z.strictObject({ weights: z.record(z.string(), finite) });
const headSchema = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("class"), classifier: classifierSchema }),
  z.strictObject({
    kind: z.literal("span"),
    start: rankerSchema,
    end: rankerSchema,
    maxLength: z.number().int().min(1),
    optional: z.boolean(),
  }),
  z.strictObject({
    kind: z.literal("number"),
    ranker: rankerSchema,
    integer: z.boolean(),
    optional: z.boolean(),
  }),
]);
const probability = z.number().min(0).max(1);
const calibrationSchema = z
  .strictObject({
    method: z.literal("logistic"),
    inputs: z.array(z.string()),
    mean: z.array(finite),
    scale: z.array(finite.refine((v) => v > 0, "must be positive")),
    weights: z.array(finite),
    bias: finite,
  })
  .refine(
    (c) =>
      c.mean.length === c.inputs.length &&
      c.scale.length === c.inputs.length &&
      c.weights.length === c.inputs.length,
    "inputs, mean, scale and weights must have the same length",
  );
const argumentsSchema = z.record(z.string(), z.record(z.string(), headSchema));
const modelSchema = z.strictObject({
  format: z.literal(MODEL_FORMAT),
  version: z.literal(MODEL_VERSION),
  node: z.string(),
  createdAt: z.string(),
  tools: z.array(
    z.object({
      name: z.string().min(1),
      description: z.string(),
      parameters: z.record(z.string(), z.unknown()),
      sensitive: z.array(z.string()).optional(),
    }),
  ),
  factKeys: z.array(z.string()),
  features: z.strictObject({
    charNgrams: z.array(z.number().int().min(1).max(8)),
    wordBigrams: z.boolean(),
    embeddingWeight: z.number().positive().max(100).optional(),
  }),
  toolHead: classifierSchema,
  arguments: argumentsSchema,
  familiarity: z.strictObject({
    documents: z.number().int().min(1),
    documentFrequency: z.record(z.string(), z.number().int().min(1)),
  }),
  encoder: z
    .strictObject({
      kind: z.literal("gguf"),
      name: z.string(),
      sha256: z.string().regex(/^[0-9a-f]{64}$/, "must be a sha256 in hex"),
      dimension: z.number().int().min(1).max(4096),
      pooling: z.enum(["mean", "cls", "last"]).optional(),
      path: z.string().optional(),
      prefix: z.string(),
      input: z.literal("task").optional(),
    })
    .optional(),
  calibration: calibrationSchema,
  crossCheck: z
    .strictObject({ toolHead: classifierSchema, arguments: argumentsSchema, calibration: calibrationSchema })
    .optional(),
  readerHead: readerHeadSchema.optional(),
  recommendedMinConfidence: probability,
  training: z.strictObject({
    examples: z.number().int().min(0),
    heldOut: z.number().int().min(0),
    tuning: z.number().int().min(0),
    validation: z.number().int().min(0).optional(),
    heldOutAccuracy: probability.nullable(),
    targetPrecision: probability,
    confidenceFloor: probability.optional(),
    heldOutCoverage: probability.nullable(),
    heldOutPrecision: probability.nullable(),
    seed: z.number().int(),
  }),
});

/**
 * Checks that a parsed value is a distilled model this code can use: format, version, every head's shape, and that
 * the tool head's classes are the learned tools (plus `<decline>`). Throws {@link DistilledModelError} listing
 * every problem.
 */
export function validateModel(value: unknown, where = "<object>"): DistilledModelData {
  if (typeof value === "object" && value !== null) {
    const v = value as Record<string, unknown>;
    if (v.format !== MODEL_FORMAT)
      throw new DistilledModelError(where, [
        `format: expected "${MODEL_FORMAT}", got ${JSON.stringify(v.format)}`,
      ]);
    if (v.version !== MODEL_VERSION)
      throw new DistilledModelError(where, [
        `version: this deputy reads version ${MODEL_VERSION}, the file is version ${JSON.stringify(v.version)}; retrain it with \`deputy distill\``,
      ]);
  }
  const parsed = modelSchema.safeParse(value);
  if (!parsed.success) {
    throw new DistilledModelError(
      where,
      parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`),
    );
  }
  const model = parsed.data as DistilledModelData;
  const problems: string[] = [];
  const toolNames = new Set(model.tools.map((t) => t.name));
  for (const [where, heads] of [
    ["", model],
    ["crossCheck.", model.crossCheck],
  ] as const) {
    if (!heads) continue;
    for (const c of heads.toolHead.classes) {
      if (c !== DECLINE_CLASS && !toolNames.has(c))
        problems.push(`${where}toolHead.classes: "${c}" is not one of the model's tools`);
    }
    for (const tool of Object.keys(heads.arguments)) {
      if (!toolNames.has(tool)) problems.push(`${where}arguments.${tool}: not one of the model's tools`);
    }
  }
  if (model.crossCheck && !model.encoder) problems.push("crossCheck: only an encoder model has one");
  if (model.readerHead) {
    const head = model.readerHead;
    if (!model.encoder) problems.push("readerHead: only a model trained on the reader has one");
    else {
      if (head.sha256 !== model.encoder.sha256)
        problems.push("readerHead.sha256: not the encoder the model was trained on");
      if (head.weights[0]!.length !== model.encoder.dimension)
        problems.push(
          `readerHead.weights: rows of ${head.weights[0]!.length}, not the encoder's ${model.encoder.dimension} dimensions`,
        );
    }
    for (const [i, l] of head.labels.entries())
      if (l.name !== null && !toolNames.has(l.name))
        problems.push(`readerHead.labels.${i}: "${l.name}" is not one of the model's tools`);
  }
  if (model.crossCheck && Object.keys(model.crossCheck.toolHead.weights).some((f) => f.startsWith("e:")))
    problems.push("crossCheck.toolHead.weights: the n-gram cross-check reads no encoder features");
  const dimension = model.encoder?.dimension ?? 0;
  for (const f of Object.keys(model.toolHead.weights)) {
    const m = /^e:(\d+)$/.exec(f);
    if (m && Number(m[1]) >= dimension)
      problems.push(
        `toolHead.weights.${f}: an encoder feature beyond the ${model.encoder ? `encoder's ${dimension} dimensions` : "model (it records no encoder)"}`,
      );
  }
  if (problems.length) throw new DistilledModelError(where, problems);
  return model;
}

/** Reads and validates a model file. */
export function loadModelFile(path: string): DistilledModelData {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (cause) {
    throw new DistilledModelError(path, [`cannot be read (${(cause as Error).message})`], { cause });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw new DistilledModelError(path, [`is not JSON (${(cause as Error).message})`], { cause });
  }
  return validateModel(value, path);
}

/** Writes a model file (pretty-printed at the top levels so it can be read and diffed). */
export function saveModelFile(path: string, model: DistilledModelData): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, JSON.stringify(model, null, 1) + "\n");
}
