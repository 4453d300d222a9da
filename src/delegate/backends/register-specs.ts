import { numberOption, parseSpecValue, registerDelegateSpec } from "../delegate-spec.js";
import { LlamaServerDelegate } from "./llama-server-delegate.js";
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
 * - `local=MODEL.gguf[,pool=N,threads=N,contextSize=N,maxTools=N,maxInputChars=N,name=NAME]` — {@link LocalDelegate}
 * - `llama-server=URL[,model=NAME,timeoutMs=N,confidence=false,maxTools=N,maxInputChars=N,name=NAME]` —
 *   {@link LlamaServerDelegate}
 * - `openai=URL[,model=NAME,apiKeyEnv=VAR,timeoutMs=N,confidence=false,maxTools=N,maxInputChars=N,name=NAME]` —
 *   {@link OpenAICompatibleDelegate}
 *
 * Importing this module registers them (the CLI does).
 */
export function registerBackendSpecs(): void {
  registerDelegateSpec(
    "local",
    (value) => {
      const { main, options } = parseSpecValue(value);
      const spec = `local=${value}`;
      return new LocalDelegate({
        model: main,
        ...(options.name ? { name: options.name } : {}),
        ...numbers(options, spec, {
          ...COMMON,
          pool: "poolSize",
          threads: "threads",
          contextSize: "contextSize",
        }),
      });
    },
    "local=MODEL.gguf[,pool=N,threads=N,contextSize=N]",
  );
  registerDelegateSpec(
    "llama-server",
    (value) => {
      const { main, options } = parseSpecValue(value);
      const spec = `llama-server=${value}`;
      return new LlamaServerDelegate({
        baseUrl: main,
        ...(options.name ? { name: options.name } : {}),
        ...(options.model ? { model: options.model } : {}),
        ...confidenceOption(options),
        ...numbers(options, spec, { ...COMMON, timeoutMs: "timeoutMs" }),
      });
    },
    "llama-server=URL[,model=NAME,timeoutMs=N,confidence=false]",
  );
  registerDelegateSpec(
    "openai",
    (value) => {
      const { main, options } = parseSpecValue(value);
      const spec = `openai=${value}`;
      return new OpenAICompatibleDelegate({
        baseUrl: main,
        ...(options.name ? { name: options.name } : {}),
        ...(options.model ? { model: options.model } : {}),
        ...(options.apiKeyEnv ? { apiKeyEnv: options.apiKeyEnv } : {}),
        ...confidenceOption(options),
        ...numbers(options, spec, { ...COMMON, timeoutMs: "timeoutMs" }),
      });
    },
    "openai=URL[,model=NAME,apiKeyEnv=VAR]",
  );
}

registerBackendSpecs();

/** `confidence=false` turns the choice confidence off (`logprobs=false`, its older spelling, still works). */
function confidenceOption(options: Record<string, string>): { confidence?: boolean } {
  const value = options.confidence ?? options.logprobs;
  return value === undefined ? {} : { confidence: value !== "false" };
}
