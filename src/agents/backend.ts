import type { createAnthropic } from "@ai-sdk/anthropic";
import type { createOpenAI } from "@ai-sdk/openai";
import type { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { createRequire } from "node:module";
import { AgentDefinitionError } from "../errors/agent-definition-error.js";
import { didYouMean } from "../tools/did-you-mean.js";
import type { CallOptions, LanguageModel } from "./language-model.js";
import { mockModel, type MockModelOptions } from "./mock-model.js";

/**
 * Provider-specific options of a backend given by name: `{ provider, model, ...options }`. Call settings
 * (`temperature`, `maxOutputTokens`, …) go to every request; everything else configures the provider (`baseURL`,
 * `apiKey`, `headers`, …).
 */
export interface BackendOptions extends CallSettings {
  /** A registered provider name: `openai-compatible`, `llama-server`, `ollama`, `openai`, `anthropic`, `mock`, or yours. */
  provider?: string;
  /** The model id, or a model instance (then only call settings apply). */
  model?: string | LanguageModel;
  [option: string]: unknown;
}

/** What an agent (or a call site) may give as its backend. A string is a provider name. */
export type BackendSpec = LanguageModel | string | BackendOptions;

/** Settings passed with every request to the model. */
export interface CallSettings {
  temperature?: number;
  maxOutputTokens?: number;
  topP?: number;
  topK?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  seed?: number;
  stopSequences?: string[];
  /** Reasoning effort (specification v4; a v3 model ignores it). */
  reasoning?: CallOptions["reasoning"];
  providerOptions?: CallOptions["providerOptions"];
}

const CALL_SETTING_KEYS = [
  "temperature",
  "maxOutputTokens",
  "topP",
  "topK",
  "presencePenalty",
  "frequencyPenalty",
  "seed",
  "stopSequences",
  "reasoning",
  "providerOptions",
] as const;

/** A backend ready to use. */
export interface ResolvedBackend {
  model: LanguageModel;
  settings: CallSettings;
}

/** Builds a model from `{ model, ...providerOptions }` (call settings already removed). */
export type ProviderFactory = (config: { model: string } & Record<string, unknown>) => LanguageModel;

interface ProviderEntry {
  factory: ProviderFactory;
  defaultModel: string | undefined;
}

const providers = new Map<string, ProviderEntry>();

// The provider SDKs load when a backend first names their provider, not when deputy is imported: a program that
// runs plans, or agents on a model instance, never pays for them (issue 22: the root entry loaded all three).
// `require` of an ES module is synchronous (Node >= 22.12) and shares the instance an `import` would get, so
// `resolveBackend` stays synchronous and a model made here is the same class as one the user made.
const require = createRequire(import.meta.url);
/**
 * A provider SDK, from the app's node_modules: `@ai-sdk/openai` and `@ai-sdk/anthropic` are optional peers of
 * deputy-js (only the backends that name them need them), so one may not be installed: say which to install.
 *
 * @internal
 */
export function loadProviderSdk(name: string): unknown {
  try {
    return require(name);
  } catch (error) {
    if ((error as { code?: string }).code === "MODULE_NOT_FOUND" && String(error).includes(name))
      throw new AgentDefinitionError(
        `The backend needs the package ${name}, which is not installed: \`npm install ${name}\` (deputy-js takes it as an optional peer dependency).`,
      );
    throw error;
  }
}
const load = loadProviderSdk;
const sdk = {
  openAICompatible: () =>
    (load("@ai-sdk/openai-compatible") as { createOpenAICompatible: typeof createOpenAICompatible })
      .createOpenAICompatible,
  openAI: () => (load("@ai-sdk/openai") as { createOpenAI: typeof createOpenAI }).createOpenAI,
  anthropic: () => (load("@ai-sdk/anthropic") as { createAnthropic: typeof createAnthropic }).createAnthropic,
};

/**
 * Registers a provider by name so backends can say `{ provider: name, model }`. Replaces an earlier one of the
 * same name.
 */
export function registerProvider(
  name: string,
  factory: ProviderFactory,
  options: { defaultModel?: string } = {},
): void {
  providers.set(name, { factory, defaultModel: options.defaultModel });
}

/** Names of the registered providers. */
export function providerNames(): string[] {
  return [...providers.keys()];
}

/**
 * Any `/v1/chat/completions` server. `includeUsage` and `supportsStructuredOutputs` default to `true`: budgets
 * need usage, and a contract's `returns` must reach the server as a `json_schema` response format (llama-server,
 * Ollama and vLLM all take it; without it the provider sends a schema-less `json_object`).
 */
function openAICompatible(defaultName: string, defaultBaseURL?: string): ProviderFactory {
  return ({ model, name, baseURL, includeUsage, supportsStructuredOutputs, ...rest }) => {
    const url = (baseURL as string | undefined) ?? defaultBaseURL;
    if (!url)
      throw new AgentDefinitionError(
        `Backend \`${defaultName}\` needs \`baseURL\` (for example "http://127.0.0.1:8080/v1").`,
      );
    return sdk
      .openAICompatible()({
        ...rest,
        name: (name as string | undefined) ?? defaultName,
        baseURL: url,
        includeUsage: (includeUsage as boolean | undefined) ?? true,
        supportsStructuredOutputs: (supportsStructuredOutputs as boolean | undefined) ?? true,
      } as Parameters<typeof createOpenAICompatible>[0])
      .chatModel(model);
  };
}

registerProvider("openai-compatible", openAICompatible("openai-compatible"));
registerProvider("llama-server", openAICompatible("llama-server", "http://127.0.0.1:8080/v1"), {
  defaultModel: "default",
});
registerProvider("ollama", openAICompatible("ollama", "http://127.0.0.1:11434/v1"));
registerProvider("openai", ({ model, ...rest }) =>
  sdk.openAI()(rest as Parameters<typeof createOpenAI>[0])(model),
);
registerProvider("anthropic", ({ model, ...rest }) =>
  sdk.anthropic()(rest as Parameters<typeof createAnthropic>[0])(model),
);
registerProvider(
  "mock",
  ({ model, ...rest }) => mockModel({ ...(rest as MockModelOptions), modelId: model }),
  { defaultModel: "mock-1" },
);

/** Is `value` a model instance of the provider specification (v4 or v3)? */
export function isLanguageModel(value: unknown): value is LanguageModel {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as LanguageModel).doGenerate === "function" &&
    typeof (value as LanguageModel).modelId === "string"
  );
}

function toOptions(spec: BackendSpec): BackendOptions {
  if (typeof spec === "string") return { provider: spec };
  if (isLanguageModel(spec)) return { model: spec };
  if (typeof spec !== "object" || spec === null)
    throw new AgentDefinitionError(
      `A backend must be a model instance, a provider name or \`{ provider, model, ...options }\`, got ${String(spec)}.`,
    );
  return spec;
}

/** Resolves a backend spec to a model instance and the call settings to send with every request. */
export function resolveBackend(spec: BackendSpec, agent?: string): ResolvedBackend {
  const options = toOptions(spec);
  const settings: CallSettings = {};
  const config: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) {
    if (key === "provider" || key === "model" || value === undefined) continue;
    if ((CALL_SETTING_KEYS as readonly string[]).includes(key))
      (settings as Record<string, unknown>)[key] = value;
    else config[key] = value;
  }
  if (isLanguageModel(options.model)) {
    const extra = Object.keys(config);
    if (extra.length > 0) {
      throw new AgentDefinitionError(
        `Backend options ${extra.join(", ")} configure a provider, but the backend is a model instance; give \`provider\` and \`model\` to build one instead.`,
        { agent },
      );
    }
    return { model: options.model, settings };
  }
  if (!options.provider) {
    throw new AgentDefinitionError(
      `A backend needs \`provider\` (one of ${providerNames().join(", ")}) or a model instance.`,
      { agent },
    );
  }
  const entry = providers.get(options.provider);
  if (!entry) {
    const hint = didYouMean(options.provider, providers.keys());
    throw new AgentDefinitionError(
      `Unknown provider \`${options.provider}\`${hint ? ` (did you mean \`${hint}\`?)` : ""}; registered: ${providerNames().join(", ")}. Add one with registerProvider().`,
      { agent },
    );
  }
  const model = options.model ?? entry.defaultModel;
  if (typeof model !== "string" || model === "")
    throw new AgentDefinitionError(`Backend \`${options.provider}\` needs \`model\`.`, { agent });
  return { model: entry.factory({ ...config, model }), settings };
}

/**
 * The backend a call site asks for, given the sub-agent's own. Same provider (or no provider named): the call
 * site's options merge over the sub-agent's, the call site wins. Another provider: its configuration is
 * rebuilt from the call site alone, so nothing of the old vendor (host, key, headers) leaks. Neither input is
 * mutated.
 */
export function mergeBackends(base: BackendSpec, override: BackendSpec | undefined): BackendSpec {
  if (override === undefined) return base;
  if (isLanguageModel(override)) return override;
  const over = toOptions(override);
  const own = toOptions(base);
  if (over.provider !== undefined && over.provider !== own.provider) return { ...over };
  if (isLanguageModel(own.model) && typeof over.model === "string") {
    throw new AgentDefinitionError(
      `The call site asks for model \`${over.model}\` but the sub-agent's backend is a model instance; name the \`provider\` too.`,
    );
  }
  return { ...own, ...over };
}
