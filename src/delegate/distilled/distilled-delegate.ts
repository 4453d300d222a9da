import { DelegateBackendError } from "../../errors/delegate-backend-error.js";
import { InvalidOptionError } from "../../errors/invalid-option-error.js";
import type { Proposal, ProposeRequest, ToolCallDelegate, ToolSpec } from "../protocol.js";
import { DistilledPredictor } from "./distilled-predictor.js";
import { loadModelFile, validateModel, type DistilledModelData } from "./model-file.js";
import { toolIncompatibility } from "./tool-compatibility.js";

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
  #closed = false;

  constructor(options: DistilledDelegateOptions) {
    if (typeof options !== "object" || options === null || options.model === undefined)
      throw new InvalidOptionError("options.model", "a model file path or a distilled model", options?.model);
    this.model =
      typeof options.model === "string" ? loadModelFile(options.model) : validateModel(options.model);
    this.name = options.name ?? "distilled";
    this.maxTools = positive("maxTools", options.maxTools) ?? Math.max(1, this.model.tools.length);
    this.maxInputChars = positive("maxInputChars", options.maxInputChars) ?? 20_000;
    this.#predictor = new DistilledPredictor(this.model);
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
    const prediction = this.#predictor.predict(
      this.#predictor.prepare(request.instruction, request.facts),
      offered,
    );
    return {
      name: prediction.name,
      arguments: prediction.arguments,
      confidence: prediction.confidence,
      backend: this.name,
      latencyMs: performance.now() - started,
    };
  }

  async close(): Promise<void> {
    this.#closed = true;
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

function positive(option: string, value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value < 1)
    throw new InvalidOptionError(option, "a positive integer", value);
  return value;
}
