import {
  numberOption,
  parseSpecValue,
  registerDelegateSpec,
  registerDelegateSpecWrapper,
} from "../delegate/delegate-spec.js";
import { InvalidOptionError } from "../errors/invalid-option-error.js";
import { readTraces } from "../traces/read-traces.js";
import { DistilledDelegate } from "./distilled-delegate.js";
import { defaultEncoderModelPath } from "./encoder-model-path.js";
import { GgufTextEncoder } from "./gguf-text-encoder.js";
import { withExamples } from "./in-context-examples.js";
import { parseEncoderSpec } from "./text-encoder.js";

/**
 * Registers `--delegate distilled=MODEL.json[,encoder=gguf=PATH,name=NAME,maxTools=N,maxInputChars=N]`
 * ({@link DistilledDelegate}). A model trained with an encoder uses `encoder=…`, else the path its file records.
 * Importing this module registers it (the CLI does).
 */
export function registerDistilledSpec(): void {
  registerDelegateSpec(
    "distilled",
    (value) => {
      const { main, options } = parseSpecValue(value);
      const spec = `distilled=${value}`;
      const maxTools = numberOption(options, "maxTools", spec);
      const maxInputChars = numberOption(options, "maxInputChars", spec);
      return DistilledDelegate.open({
        model: main,
        ...(options.encoder ? { encoder: options.encoder } : {}),
        ...(options.name ? { name: options.name } : {}),
        ...(maxTools ? { maxTools } : {}),
        ...(maxInputChars ? { maxInputChars } : {}),
      });
    },
    "distilled=MODEL.json[,encoder=gguf=PATH,name=NAME,maxTools=N,maxInputChars=N]",
  );
}

/**
 * Registers the `examples=TRACES.jsonl[,k=N,encoder=gguf=PATH]` option of every `--delegate` kind
 * ({@link withExamples}): the node's accepted calls and people's decisions in the trace file (the format
 * `deputy run --traces` writes and `deputy distill` reads) are shown to the model as worked examples, the k most
 * like the task (default 4), chosen by the encoder (default: the all-MiniLM-L6-v2 `scripts/encoder-model.sh`
 * caches). Read once when the delegate is built: a missing file is one error before anything runs.
 */
export function registerExamplesOption(): void {
  registerDelegateSpecWrapper(
    "examples",
    async (delegate, options, spec) => {
      const { traces } = readTraces(options.examples!);
      const k = options.k === undefined ? 4 : Number(options.k);
      if (!Number.isInteger(k) || k < 0)
        throw new InvalidOptionError(`k in --delegate ${spec}`, "a whole number ≥ 0", options.k!);
      const path = options.encoder
        ? parseEncoderSpec(options.encoder, `encoder in --delegate ${spec}`).path
        : defaultEncoderModelPath();
      const encoder = await GgufTextEncoder.open(path);
      return withExamples(delegate, { source: { traces }, encoder, k, closeEncoder: true });
    },
    "examples=TRACES.jsonl[,k=N,encoder=gguf=PATH]",
  );
}

registerDistilledSpec();
registerExamplesOption();
