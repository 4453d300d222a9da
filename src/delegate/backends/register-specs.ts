import {
  DelegateSpecRegistry,
  numberOption,
  parseSpecValue,
  registerScriptedSpec,
} from "../delegate-spec.js";
import { InvalidOptionError } from "../../errors/index.js";
import { CONFIDENCE_METHODS, type ConfidenceMethod } from "../../confidence/answer-confidence.js";
import { CalibratedDelegate } from "./calibrated-delegate.js";
import {
  type DelegateCalibrationFile,
  readDelegateCalibration,
} from "../../confidence/delegate-calibration.js";
import { LlamaServerDelegate } from "./llama-server-delegate.js";
import { expandCataloguedLocal } from "./catalogued-spec.js";
import { LocalDelegate } from "./local-delegate.js";
import { OpenAICompatibleDelegate } from "./openai-compatible-delegate.js";

/** Copies the numeric options that are set (spec keys → constructor keys). */
function numbers(
  options: Record<string, string>,
  spec: string,
  keys: Record<string, string>,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [specKey, optionKey] of Object.entries(keys)) {
    const n = numberOption(options, specKey, spec);
    if (n !== undefined) out[optionKey] = n;
  }
  return out;
}

const COMMON = { maxTools: "maxTools", maxInputChars: "maxInputChars" };

/**
 * Registers the llama.cpp backends for `--delegate`:
 * - `local=MODEL.gguf[,pool=N,threads=N,contextSize=N,confidence=false|answer|choice,decline=P|false,selfcheck=S|false,jump=true|false,calibration=FILE,maxTools=N,maxInputChars=N,name=NAME]` —
 *   {@link LocalDelegate}; with `calibration=FILE` (from `deputy calibrate`) its confidence is calibrated
 * - `llama-server=URL[,model=NAME,timeoutMs=N,confidence=false|answer|choice,calibration=FILE,maxTools=N,maxInputChars=N,name=NAME]` —
 *   {@link LlamaServerDelegate}
 * - `openai=URL[,model=NAME,apiKeyEnv=VAR,timeoutMs=N,confidence=false,maxTools=N,maxInputChars=N,name=NAME]` —
 *   {@link OpenAICompatibleDelegate}
 */
export function registerBackendSpecs(registry: DelegateSpecRegistry): DelegateSpecRegistry {
  // A catalogued model's name (or its file) brings the model's measured settings: it declines by default.
  registry.expand("local", (value) => expandCataloguedLocal(value));
  registry.register(
    "local",
    (value) => {
      const { main, options } = parseSpecValue(value);
      const spec = `local=${value}`;
      const calibration = options.calibration ? readDelegateCalibration(options.calibration) : undefined;
      const delegate = new LocalDelegate({
        model: main,
        ...(calibration ? { tokenProbability: true, ...calibratedMethod(calibration) } : {}),
        ...confidenceOption(options, spec),
        // decline=P: LocalDelegate's declineThreshold (decline=false: the likeliest token decides).
        ...(options.decline === undefined
          ? {}
          : { declineThreshold: options.decline === "false" ? false : Number(options.decline) }),
        // selfcheck=S: LocalDelegate's selfCheck (selfcheck=false: none).
        ...(options.selfcheck === undefined
          ? {}
          : { selfCheck: options.selfcheck === "false" ? false : Number(options.selfcheck) }),
        // jump=false: step-by-step decoding (LocalDelegate's jumpForward; the same answers, more batches).
        ...(options.jump === undefined ? {} : { jumpForward: booleanOption(options, "jump", spec) }),
        ...(options.name ? { name: options.name } : {}),
        ...numbers(options, spec, {
          ...COMMON,
          pool: "poolSize",
          threads: "threads",
          contextSize: "contextSize",
        }),
      });
      return calibration ? new CalibratedDelegate(delegate, calibration) : delegate;
    },
    "local=MODEL.gguf|CATALOGUE-NAME[,pool=N,threads=N,contextSize=N,confidence=answer|choice|false,decline=P|false,selfcheck=S|false,jump=true|false,calibration=FILE]",
  );
  registry.register(
    "llama-server",
    (value) => {
      const { main, options } = parseSpecValue(value);
      const spec = `llama-server=${value}`;
      const calibration = options.calibration ? readDelegateCalibration(options.calibration) : undefined;
      const delegate = new LlamaServerDelegate({
        baseUrl: main,
        ...(options.name ? { name: options.name } : {}),
        ...(options.model ? { model: options.model } : {}),
        ...(calibration ? calibratedMethod(calibration) : {}),
        ...confidenceOption(options, spec),
        ...numbers(options, spec, { ...COMMON, timeoutMs: "timeoutMs" }),
      });
      return calibration ? new CalibratedDelegate(delegate, calibration) : delegate;
    },
    "llama-server=URL[,model=NAME,timeoutMs=N,confidence=answer|choice|false,calibration=FILE]",
  );
  registry.register(
    "openai",
    (value) => {
      const { main, options } = parseSpecValue(value);
      const spec = `openai=${value}`;
      return new OpenAICompatibleDelegate({
        baseUrl: main,
        ...(options.name ? { name: options.name } : {}),
        ...(options.model ? { model: options.model } : {}),
        ...(options.apiKeyEnv ? { apiKeyEnv: options.apiKeyEnv } : {}),
        ...confidenceOption(options, spec),
        ...numbers(options, spec, { ...COMMON, timeoutMs: "timeoutMs" }),
      });
    },
    "openai=URL[,model=NAME,apiKeyEnv=VAR]",
  );
  return registry;
}

/** A registry with the delegate part's built-in kinds: `scripted=`, `local=`, `llama-server=` and `openai=`. */
export function createDelegateSpecRegistry(): DelegateSpecRegistry {
  return registerBackendSpecs(registerScriptedSpec(new DelegateSpecRegistry()));
}

/** A calibration maps the confidence method it was fitted on (files without one predate methods: choice). */
function calibratedMethod(file: DelegateCalibrationFile): { confidenceMethod: ConfidenceMethod } {
  return { confidenceMethod: file.confidenceMethod ?? "choice" };
}

/** A `true`/`false` option of a spec; anything else names the spec. */
function booleanOption(options: Record<string, string>, key: string, spec: string): boolean {
  const value = options[key];
  if (value === "true" || value === "false") return value === "true";
  throw new InvalidOptionError(`${key} in ${spec}`, "true or false", value);
}

/**
 * `confidence=false` turns confidence off (`logprobs=false`, its older spelling, still works);
 * `confidence=answer|choice` picks the method (docs/quality.md).
 */
function confidenceOption(
  options: Record<string, string>,
  spec: string,
): { confidence?: boolean; confidenceMethod?: ConfidenceMethod } {
  const value = options.confidence ?? options.logprobs;
  if (value === undefined || value === "true") return {};
  if (value === "false") return { confidence: false };
  if ((CONFIDENCE_METHODS as readonly string[]).includes(value)) {
    return { confidenceMethod: value as ConfidenceMethod };
  }
  throw new InvalidOptionError("confidence", `false, answer or choice in ${spec}`, value);
}
