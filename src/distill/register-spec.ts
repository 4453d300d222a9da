import { existsSync } from "node:fs";
import { numberOption, parseSpecValue, type DelegateSpecRegistry } from "../delegate/delegate-spec.js";
import { RelevanceDelegate } from "../delegate/relevance.js";
import { InvalidOptionError } from "../errors/invalid-option-error.js";
import { DistilledDelegate } from "./distilled-delegate.js";
import { defaultEncoderModelPath } from "./encoder-model-path.js";
import { readTraces } from "../traces/read-traces.js";
import { withExamples } from "./in-context-examples.js";
import { parseEncoderSpec } from "./text-encoder.js";
import { withTrust } from "../delegate/proposal-trust.js";
import { checkTrustFittedFor } from "./trust-fitted-for.js";
import { loadTrustFile } from "./trust-model-file.js";
import { TrustModel } from "./trust-model.js";

/**
 * Registers `--delegate distilled=MODEL.json[,encoder=gguf=PATH,stable=MIN,name=NAME,maxTools=N,maxInputChars=N]`
 * ({@link DistilledDelegate}). A model trained with an encoder uses `encoder=…`, else the path its file records.
 * `stable=MIN` turns the stability check on: a call fewer than MIN (0–1) of the copies with words left out repeat
 * gets confidence 0.
 */
export function registerDistilledSpec(registry: DelegateSpecRegistry): void {
  registry.register(
    "distilled",
    (value) => {
      const { main, options } = parseSpecValue(value);
      const spec = `distilled=${value}`;
      const maxTools = numberOption(options, "maxTools", spec);
      const maxInputChars = numberOption(options, "maxInputChars", spec);
      const stable = shareOption(options, "stable", spec);
      return DistilledDelegate.open({
        model: main,
        ...(options.encoder ? { encoder: options.encoder } : {}),
        ...(options.name ? { name: options.name } : {}),
        ...(maxTools ? { maxTools } : {}),
        ...(maxInputChars ? { maxInputChars } : {}),
        ...(stable !== undefined ? { stability: { min: stable } } : {}),
      });
    },
    "distilled=MODEL.json[,encoder=gguf=PATH,stable=MIN,name=NAME,maxTools=N,maxInputChars=N]",
  );
}

/**
 * Registers the spec option `relevance=encoder:T[/BELOW@C][:PATH.gguf]`, accepted by every kind (`local=M.gguf,
 * relevance=encoder:0.26/0.6@0.3`, `llama-server=URL,relevance=…`, `distilled=…`): a {@link RelevanceDelegate}
 * in front of the backend — decline below T before the call; with `/BELOW@C`, also decline a call on a task
 * scoring below BELOW whose confidence is under C — with the sentence encoder at PATH (default: the
 * all-MiniLM-L6-v2 that `scripts/encoder-model.sh` caches), opened on the first proposal. With `sure=A`, a task
 * below T is still asked and its call kept when grounded or at least A sure ({@link RelevanceDelegate}'s `sure`);
 * `sure=false` takes a catalogued model's `sure` off.
 */
export function registerRelevanceSpec(registry: DelegateSpecRegistry): void {
  registry.wrap(
    "relevance",
    (inner, value, spec, options) => {
      // relevance=false: no step (a catalogued model's measured settings bring one; this takes it off).
      if (value === "false") return inner;
      const m = /^encoder:([^:/]+)(?:\/([^:@]+)@([^:]+))?(?::(.+))?$/.exec(value);
      const threshold = m ? Number(m[1]) : NaN;
      const weak = m?.[2] === undefined ? undefined : { below: Number(m[2]), minConfidence: Number(m[3]) };
      if (
        !m ||
        !(threshold >= -1 && threshold <= 1) ||
        (weak && !(weak.below >= -1 && weak.below <= 1 && weak.minConfidence >= 0 && weak.minConfidence <= 1))
      )
        throw new InvalidOptionError(
          `relevance in --delegate ${spec}`,
          "encoder:T[/BELOW@C][:PATH.gguf] with T and BELOW from -1 to 1, C from 0 to 1",
          value,
        );
      // sure=false: no asking below T (a catalogued model's measured settings may bring one; this takes it off).
      const sure = options.sure === "false" ? undefined : shareOption(options, "sure", spec);
      const path = m[4] ?? defaultEncoderModelPath();
      // Checked now, so a wrong path fails before anything runs, not on the first item.
      if (!existsSync(path))
        throw new InvalidOptionError(
          `relevance in --delegate ${spec}`,
          "an existing GGUF encoder file (bash scripts/encoder-model.sh fetches the default; relevance=false goes without the step)",
          path,
        );
      return new RelevanceDelegate({
        inner,
        threshold,
        ...(weak ? { weak } : {}),
        ...(sure !== undefined ? { sure } : {}),
        encoder: async () => {
          const { GgufTextEncoder } = await import("./gguf-text-encoder.js");
          return GgufTextEncoder.open(path, { contexts: 1 });
        },
      });
    },
    "relevance=encoder:T[/BELOW@C][:PATH.gguf][,sure=A|false]|false",
    ["sure"],
  );
}

/**
 * Registers the `examples=TRACES.jsonl[,k=N,examplesEncoder=gguf=PATH]` option of every `--delegate` kind
 * ({@link withExamples}): the node's accepted calls and people's decisions in the trace file (the format
 * `deputy run --traces` writes and `deputy distill` reads) are shown to the model as worked examples, the k most
 * like the task (default 4), chosen by the encoder (default: the all-MiniLM-L6-v2 `scripts/encoder-model.sh`
 * caches). Read once when the delegate is built: a missing file is one error before anything runs.
 */
export function registerExamplesOption(registry: DelegateSpecRegistry): void {
  registry.wrap(
    "examples",
    async (delegate, file, spec, options) => {
      const { traces } = readTraces(file);
      const k = options.k === undefined ? 4 : Number(options.k);
      if (!Number.isInteger(k) || k < 0)
        throw new InvalidOptionError(`k in --delegate ${spec}`, "a whole number ≥ 0", options.k!);
      const path = options.examplesEncoder
        ? parseEncoderSpec(options.examplesEncoder, `examplesEncoder in --delegate ${spec}`).path
        : defaultEncoderModelPath();
      const { GgufTextEncoder } = await import("./gguf-text-encoder.js");
      const encoder = await GgufTextEncoder.open(path);
      return withExamples(delegate, { source: { traces }, encoder, k, closeEncoder: true });
    },
    "examples=TRACES.jsonl[,k=N,examplesEncoder=gguf=PATH]",
    ["k", "examplesEncoder"],
  );
}

/**
 * Registers the `trust=FILE|false` option of every `--delegate` kind: the level's trust model (what `deputy eval
 * --trust-out` writes), so a delegate node's gate judges its proposals by the model's probability and threshold
 * ({@link withTrust}); a file whose fit found too few decisions leaves the gate as it is. The file is read and
 * checked field by field when the backend is built: a bad one is one error before anything runs, and so is one
 * fitted for another model file than the spec's (`DISTILLED_TRUST_MISMATCH`, {@link checkTrustFittedFor}). A
 * `distilled=M.json` spec without `trust=` takes `M.trust.json` beside the model when there is one;
 * `trust=false` goes without.
 */
export function registerTrustOption(registry: DelegateSpecRegistry): void {
  registry.wrap(
    "trust",
    async (delegate, value, _spec, _options, target) => {
      if (value === "false") return delegate;
      const file = loadTrustFile(value);
      if (file.status !== "fitted") return delegate;
      await checkTrustFittedFor(value, file.model.fittedFor, target);
      return withTrust(delegate, new TrustModel(file.model));
    },
    "trust=FILE.trust.json|false",
    [],
    true,
  );
  registry.expand("distilled", (value) => {
    const { main, options } = parseSpecValue(value);
    if (options.trust !== undefined) return value;
    const beside = trustFileBeside(main);
    return existsSync(beside) ? `${value},trust=${beside}` : value;
  });
}

/** Where a distilled model's trust file is found: `m.json` → `m.trust.json`, `m.model.json` → `m.model.trust.json`. */
export function trustFileBeside(model: string): string {
  return `${model.replace(/\.json$/, "")}.trust.json`;
}

/**
 * Adds the distill part's spec kind and options to a registry: `distilled=MODEL.json`, and the `relevance=`,
 * `examples=` and `trust=` options every kind accepts.
 */
export function registerDistillSpecs(registry: DelegateSpecRegistry): DelegateSpecRegistry {
  registerDistilledSpec(registry);
  registerRelevanceSpec(registry);
  registerExamplesOption(registry);
  registerTrustOption(registry);
  return registry;
}

/** A spec option that is a share (`stable=0.9`, `sure=0.5`): a number from 0 to 1, never empty; absent is undefined. */
function shareOption(options: Record<string, string>, name: string, spec: string): number | undefined {
  const raw = options[name];
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (raw.trim() === "" || !(n >= 0 && n <= 1))
    throw new InvalidOptionError(`${name} in --delegate ${spec}`, "a number from 0 to 1", raw);
  return n;
}
