import type {
  LanguageModelV3,
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4GenerateResult,
} from "@ai-sdk/provider";

/**
 * A model instance deputy drives: the AI SDK provider specification of the current major (`LanguageModelV4`,
 * AI SDK 7 and its `@ai-sdk/*` providers) or of the previous one (`LanguageModelV3`, AI SDK 6), so a user can
 * bring the provider instances of either.
 */
export type LanguageModel = LanguageModelV4 | LanguageModelV3;

/** One request in the current specification's shape (what the tool loop sends). */
export type CallOptions = LanguageModelV4CallOptions;

/** One answer in the current specification's shape. */
export type GenerateResult = LanguageModelV4GenerateResult;

/**
 * One request to `model` (`doGenerate`), whichever of the two specifications it implements. What the tool loop
 * sends — text, tool-call and tool-result parts, function tools, a tool choice, a JSON response format and the
 * call settings — has the same shape in v3 and v4, and what it reads back (text and tool-call content, the nested
 * usage, the finish reason) too; a v3 model ignores the v4-only `reasoning` setting.
 */
export function generate(model: LanguageModel, call: CallOptions): PromiseLike<GenerateResult> {
  return (model as LanguageModelV4).doGenerate(call);
}
