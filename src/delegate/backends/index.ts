/**
 * Delegate backends on llama.cpp: in-process ({@link LocalDelegate}), a llama-server over HTTP
 * ({@link LlamaServerDelegate}) and any OpenAI-compatible server ({@link OpenAICompatibleDelegate}). Importing
 * this module also registers their `--delegate` specs (`local=`, `llama-server=`, `openai=`).
 */
export { LocalDelegate, type LocalDelegateOptions } from "./local-delegate.js";
export { LlamaServerDelegate, type LlamaServerDelegateOptions } from "./llama-server-delegate.js";
export {
  HttpDelegate,
  HTTP_DELEGATE_DEFAULTS,
  type HttpDelegateOptions,
  type HttpDelegateSettings,
  type HttpProposeCall,
} from "./http-delegate.js";
export {
  OpenAICompatibleDelegate,
  type OpenAICompatibleDelegateOptions,
  textChoiceConfidence,
} from "./openai-compatible-delegate.js";
export {
  candidateTexts,
  choiceDistribution,
  choiceProbability,
  decisionOffset,
  type CandidatePath,
  type ProbabilitiesAt,
} from "./choice-confidence.js";
export {
  toGrammarSchema,
  NODE_LLAMA_CPP_DIALECT,
  LLAMA_SERVER_DIALECT,
  type GrammarDialect,
} from "./grammar-schema.js";
export { registerBackendSpecs } from "./register-specs.js";
