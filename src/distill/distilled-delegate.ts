import { existsSync } from "node:fs";
import { DelegateBackendError } from "../errors/delegate-backend-error.js";
import { DistilledModelError } from "../errors/distilled-model-error.js";
import { InvalidOptionError } from "../errors/invalid-option-error.js";
import type { Proposal, ProposeRequest, ToolCallDelegate, ToolSpec } from "../delegate/protocol.js";
import { DistilledPredictor } from "./distilled-predictor.js";
import { loadModelFile, validateModel, type DistilledModelData } from "./model-file.js";
import { toolIncompatibility } from "./tool-compatibility.js";
import { identityDigest } from "../delegate/backends/cached-delegate.js";
import { EmbeddingBatcher } from "./embedding-batcher.js";
import { encoderInput } from "./encoder-input.js";
import { GgufTextEncoder, unit, type GgufTextEncoderOptions } from "./gguf-text-encoder.js";
import { parseEncoderSpec, sameEncoder, type EncoderInfo, type TextEncoder } from "./text-encoder.js";
import { checkStability, decisionKey, perturbedInstructions, type StabilityOptions } from "./stability.js";

/** Options of {@link DistilledDelegate}. */
export interface DistilledDelegateOptions {
  /** A model file written by `deputy distill` (or {@link trainDistilled}), or the model itself. */
  model: string | DistilledModelData;
  /** Name in traces and manifests. Default `"distilled"`. */
  name?: string;
  /** Most candidate tools per proposal. Default: the number of tools the model learned (at least 1). */
  maxTools?: number;
  /** Most characters of instruction + facts. Default `20_000` (cost grows linearly; nothing is truncated). */
  maxInputChars?: number;
  /**
   * The pretrained encoder of a model trained with one (`deputy distill --encoder`): an open {@link TextEncoder}
   * (the caller closes it), or, with {@link DistilledDelegate.open}, a spec `gguf=PATH`. It must be the very
   * encoder the model records (same checksum and dimension); a model trained without one takes none.
   */
  encoder?: TextEncoder | string;
  /** How {@link DistilledDelegate.open} runs an encoder it opens from a spec. */
  encoderOptions?: GgufTextEncoderOptions;
  /**
   * The stability check (`stable=MIN` in a spec): the model predicts again on copies of the instruction with
   * words left out, and a call fewer than `min` of them repeat gets confidence 0 (see {@link StabilityOptions}).
   */
  stability?: StabilityOptions;
}

/**
 * A delegate learned from the calls a larger model or a person already made for one node: word and character
 * n-gram features of the instruction and facts feed a tool classifier and one head per argument (a class, a span
 * of the text, or a number read from it); the confidence is the calibrated probability that the whole call is
 * right, so `min_confidence` means what it says. It runs in-process in microseconds with no model download, and
 * hands what it is unsure of (low confidence) to the next backend or a person.
 *
 * A node whose tools changed incompatibly since training, or an input without a fact every training input had,
 * gets a `DelegateBackendError` (the `backend_error` verdict) saying why — never a call the model cannot make
 * correctly.
 *
 * @example
 * const delegate = new DistilledDelegate({ model: "examples/alert-triage/data/model.json" });
 * // in the plan: "min_confidence": delegate.model.recommendedMinConfidence
 */
export class DistilledDelegate implements ToolCallDelegate {
  readonly name: string;
  readonly maxTools: number;
  readonly maxInputChars: number;
  /** The validated model (read it for `recommendedMinConfidence` and the training figures). */
  readonly model: DistilledModelData;
  readonly #predictor: DistilledPredictor;
  readonly #compatibility = new WeakMap<readonly ToolSpec[], string | null>();
  readonly #batcher: EmbeddingBatcher | undefined;
  readonly #stability: Required<StabilityOptions> | undefined;
  readonly #ownedEncoder: TextEncoder | undefined;
  #closed = false;
  #identity: string | undefined;

  /**
   * A delegate for a model file or model. A model trained with an encoder needs `options.encoder` as an open
   * {@link TextEncoder}; {@link DistilledDelegate.open} opens one from a spec or the recorded path. (`_owned`,
   * internal: an encoder this delegate closes when it is closed.)
   */
  constructor(options: DistilledDelegateOptions, _owned?: TextEncoder) {
    if (typeof options !== "object" || options === null || options.model === undefined)
      throw new InvalidOptionError("options.model", "a model file path or a distilled model", options?.model);
    this.model =
      typeof options.model === "string" ? loadModelFile(options.model) : validateModel(options.model);
    const where = typeof options.model === "string" ? options.model : "<object>";
    const encoder = options.encoder;
    if (typeof encoder === "string")
      throw new InvalidOptionError(
        "encoder",
        "an open TextEncoder (use DistilledDelegate.open for a spec)",
        encoder,
      );
    checkEncoder(where, this.model.encoder, encoder?.info);
    if (this.model.readerHead && encoder && !encoder.embedRaw)
      throw new DistilledModelError(where, [
        "its reader head reads the encoder's raw vectors, which this encoder does not give (open it as a GGUF encoder)",
      ]);
    // A reader head reads the vector before it is scaled to unit length; the model's own heads read it scaled.
    this.#batcher =
      encoder &&
      new EmbeddingBatcher(
        this.model.readerHead
          ? { info: encoder.info, embed: (t) => encoder.embedRaw!(t), close: () => encoder.close() }
          : encoder,
      );
    this.#ownedEncoder = _owned;
    this.name = options.name ?? "distilled";
    this.maxTools = positive("maxTools", options.maxTools) ?? Math.max(1, this.model.tools.length);
    this.maxInputChars = positive("maxInputChars", options.maxInputChars) ?? 20_000;
    this.#predictor = new DistilledPredictor(this.model);
    if (options.stability !== undefined) {
      const checked = checkStability(options.stability);
      if (typeof checked === "string") throw new InvalidOptionError("stability", checked, options.stability);
      this.#stability = checked;
    }
  }

  /**
   * A digest of the model (its weights, tools and encoder): a distilled model always gives the same proposal for
   * the same request, so `CachedDelegate` may reuse them. Computed once, on first use.
   */
  get cacheIdentity(): string {
    return (this.#identity ??= identityDigest(["distilled", this.model, this.#stability ?? null]));
  }

  async propose(request: ProposeRequest): Promise<Proposal> {
    const started = performance.now();
    if (this.#closed)
      throw new DelegateBackendError(this.name, "the distilled delegate is closed", {
        code: "DELEGATE_CLOSED",
      });
    if (request.signal?.aborted)
      throw new DelegateBackendError(this.name, "aborted", {
        code: "DELEGATE_ABORTED",
        cause: request.signal.reason,
      });
    if (request.tools.length === 0) {
      return {
        name: null,
        arguments: {},
        confidence: 1,
        backend: this.name,
        latencyMs: performance.now() - started,
      };
    }
    const cause = this.#incompatibility(request.tools);
    if (cause)
      throw new DelegateBackendError(this.name, `model for node "${this.model.node}": ${cause}`, {
        code: "DISTILLED_TOOLS_CHANGED",
      });
    const missing = this.model.factKeys.filter((k) => !Object.hasOwn(request.facts, k));
    if (missing.length)
      throw new DelegateBackendError(
        this.name,
        `model for node "${this.model.node}" was trained with the facts ${this.model.factKeys.join(", ")}; this input lacks ${missing.join(", ")}`,
        { code: "DISTILLED_INPUT_CHANGED" },
      );
    const offered = new Set(request.tools.map((t) => t.name));
    const prediction = await this.#predict(request.instruction, request.facts, offered);
    let confidence = prediction.confidence;
    if (this.#stability && prediction.name !== null && confidence > 0) {
      const { min, samples, drop } = this.#stability;
      const copies = perturbedInstructions(
        request.instruction,
        this.model.encoder?.prefix ?? "",
        samples,
        drop,
      );
      const isClass = (tool: string, argument: string) =>
        this.#predictor.classValues(tool, argument) !== undefined;
      const want = decisionKey(prediction, isClass);
      const again = await Promise.all(copies.map((copy) => this.#predict(copy, request.facts, offered)));
      const same = again.filter((p) => decisionKey(p, isClass) === want).length;
      if (same < min * samples) confidence = 0;
    }
    return {
      name: prediction.name,
      arguments: prediction.arguments,
      confidence,
      backend: this.name,
      latencyMs: performance.now() - started,
    };
  }

  /** The model's prediction for one instruction (embedded first when the model has an encoder). */
  async #predict(instruction: string, facts: Record<string, unknown>, offered: ReadonlySet<string>) {
    let embedding: Float32Array | undefined;
    let raw: Float32Array | undefined;
    if (this.#batcher) {
      try {
        embedding = await this.#batcher.embed(encoderInput(this.model.encoder!, instruction, facts));
        if (this.model.readerHead) [raw, embedding] = [embedding, unit(embedding)];
      } catch (cause) {
        throw new DelegateBackendError(this.name, `the encoder failed: ${(cause as Error).message}`, {
          code: "DISTILLED_ENCODER_FAILED",
          cause,
        });
      }
    }
    return this.#predictor.predict(this.#predictor.prepare(instruction, facts, embedding), offered, raw);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#ownedEncoder?.close();
  }

  /**
   * Opens a delegate, and the encoder its model was trained with: `options.encoder` (an open encoder or a spec
   * `gguf=PATH`), else the path the model file records. The delegate closes an encoder it opened.
   */
  static async open(options: DistilledDelegateOptions): Promise<DistilledDelegate> {
    const model =
      typeof options.model === "string" ? loadModelFile(options.model) : validateModel(options.model);
    const where = typeof options.model === "string" ? options.model : "<object>";
    let spec = options.encoder;
    if (spec === undefined && model.encoder?.path && existsSync(model.encoder.path))
      spec = `gguf=${model.encoder.path}`;
    if (typeof spec !== "string") return new DistilledDelegate({ ...options, model });
    const parsed = parseEncoderSpec(spec);
    const encoder = await GgufTextEncoder.open(parsed.path, options.encoderOptions);
    try {
      return new DistilledDelegate({ ...options, model, encoder }, encoder);
    } catch (error) {
      await encoder.close();
      throw new DistilledModelError(where, (error as DistilledModelError).problems ?? [String(error)], {
        code: (error as DistilledModelError).code,
        cause: error,
      });
    }
  }

  #incompatibility(tools: readonly ToolSpec[]): string | undefined {
    let cached = this.#compatibility.get(tools);
    if (cached === undefined) {
      cached = toolIncompatibility(this.model, tools, (t, a) => this.#predictor.classValues(t, a)) ?? null;
      this.#compatibility.set(tools, cached);
    }
    return cached ?? undefined;
  }
}

function describe(e: EncoderInfo): string {
  return `${e.name} (${e.kind}, ${e.dimension} dimensions, sha256 ${e.sha256.slice(0, 12)}…)`;
}

/**
 * @internal Throws {@link DistilledModelError} (`DISTILLED_ENCODER_MISMATCH`) unless the given encoder is the one
 * the model was trained on — same sha256 of its file and dimension — or neither has one.
 */
export function checkEncoder(
  where: string,
  recorded: EncoderInfo | undefined,
  given: EncoderInfo | undefined,
): void {
  const fail = (problem: string) => {
    throw new DistilledModelError(where, [problem], { code: "DISTILLED_ENCODER_MISMATCH" });
  };
  if (recorded && !given)
    fail(
      `it was trained with the encoder ${describe(recorded)}; give it (--encoder gguf=PATH, or scripts/encoder-model.sh to fetch it)`,
    );
  if (!recorded && given)
    fail(`it was trained without an encoder; ${describe(given)} was given (leave --encoder out)`);
  if (recorded && given && !sameEncoder(recorded, given))
    fail(
      `it was trained with the encoder ${describe(recorded)}, not ${describe(given)}; retrain it with this one`,
    );
}

function positive(option: string, value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value < 1)
    throw new InvalidOptionError(option, "a positive integer", value);
  return value;
}
