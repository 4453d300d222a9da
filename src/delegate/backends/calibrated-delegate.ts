import type { JsonSchema } from "../../schema/json-schema.js";
import type { Proposal, ProposeRequest, ToolCallDelegate } from "../protocol.js";
import { calibratedConfidence, type DelegateCalibrationFile } from "../../confidence/delegate-calibration.js";
import { proposalContext } from "../../confidence/proposal-context.js";
import { identityDigest } from "./cached-delegate.js";

/**
 * A delegate whose `confidence` is replaced by a per-model calibration (`deputy calibrate`): the probability,
 * fitted on labelled proposals, that the call is exactly right given the choice confidence and the mean token
 * probability (and, for a file fitted `--with-context`, the number of candidate tools and the share of argument
 * values found verbatim in the input). The inner backend must measure both (`LocalDelegate` with `tokenProbability: true`,
 * `LlamaServerDelegate` with `useLogprobs`); a proposal without them gets `confidence: null` (the gate's
 * `unscored`).
 *
 * @example
 * const delegate = new CalibratedDelegate(
 *   new LocalDelegate({ model, tokenProbability: true }),
 *   readDelegateCalibration("qwen.calibration.json"),
 * );
 */
export class CalibratedDelegate implements ToolCallDelegate {
  readonly name: string;
  readonly maxTools: number;
  readonly maxInputChars: number;
  readonly checkSchema?: (schema: JsonSchema) => string | undefined;
  readonly #inner: ToolCallDelegate;
  readonly #file: DelegateCalibrationFile;

  constructor(inner: ToolCallDelegate, file: DelegateCalibrationFile) {
    this.#inner = inner;
    this.#file = file;
    this.name = inner.name;
    this.maxTools = inner.maxTools;
    this.maxInputChars = inner.maxInputChars;
    if (inner.checkSchema) this.checkSchema = (schema) => inner.checkSchema!(schema);
  }

  async propose(request: ProposeRequest): Promise<Proposal> {
    const proposal = await this.#inner.propose(request);
    const context = proposalContext(request, proposal.arguments);
    return { ...proposal, confidence: calibratedConfidence(this.#file, proposal, context) };
  }

  /** The inner backend's identity and the calibration: deterministic exactly when the inner backend is. */
  get cacheIdentity(): string | undefined {
    const inner = this.#inner.cacheIdentity;
    return inner === undefined ? undefined : identityDigest(["calibrated", inner, this.#file]);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }
}
