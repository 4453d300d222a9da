/// <reference types="node" preserve="true" />
/**
 * Tool-call delegates: a small model proposes exactly one tool call, constrained by one JSON Schema
 * ({@link buildProposalSchema}) and prompted the same way by every backend ({@link buildPrompt}); the
 * {@link acceptGate} decides whether it may run; {@link delegateNodeExecutor} runs `delegate` plan nodes with the
 * `on_reject` policies and escalation. Backends: {@link LocalDelegate} (in-process llama.cpp),
 * {@link LlamaServerDelegate} and {@link OpenAICompatibleDelegate} (over HTTP, on {@link HttpDelegate}),
 * {@link CalibratedDelegate} (a per-model calibration over any of them), {@link RelevanceDelegate} (a sentence-encoder
 * relevance step that declines before any of them is asked), and {@link ScriptedDelegate} (replays
 * proposals deterministically); {@link createDelegateSpecRegistry} builds them from `--delegate KIND=…` specs. Traces are
 * `deputy-js/traces`; learned delegates are `deputy-js/distill`; scores and calibration are `deputy-js/confidence`.
 *
 * @packageDocumentation
 */
export type {
  Proposal,
  ProposalRelevance,
  ProposalSelfCheck,
  ProposalUsage,
  ProposeContext,
  ProposeRequest,
  ToolCallDelegate,
  ToolSpec,
} from "./protocol.js";
export { buildProposalSchema } from "./proposal-schema.js";
export { trustSignals, withTrust, type ProposalTrust, type TrustSignals } from "./proposal-trust.js";
export type { TrustReading } from "../records/hop.js";
export {
  buildPrompt,
  inputChars,
  type DelegatePrompt,
  type PromptInput,
} from "../runtime/tool-call-prompt.js";
export {
  acceptGate,
  CHECKS,
  VERDICTS,
  type CheckPolicy,
  type GateInput,
  type GateResult,
  type Verdict,
} from "./accept-gate.js";
export {
  judgeProposal,
  proposeAndJudge,
  type JudgeProposalInput,
  type Judged,
  type ProposeAndJudgeInput,
} from "./propose-and-judge.js";
export type { ProposalSource } from "./record-proposal.js";
export { delegateNodeExecutor, type HopSummary } from "./delegate-node-executor.js";
export { delegateNodeType } from "./delegate-node-type.js";
export type { DelegateNode } from "./delegate-node.js";
export type {
  EscalationAnswer,
  EscalationHandler,
  EscalationRequest,
  ProposedCall,
} from "./host-capabilities.js";
export {
  resolveEscalation,
  type EscalationDecision,
  type RecordedResolution,
} from "./escalation/resolve-escalation.js";
export { ScriptedDelegate, type ScriptedDelegateOptions, type ScriptedEntry } from "./scripted-delegate.js";
export {
  DelegateSpecRegistry,
  numberOption,
  parseSpecValue,
  registerScriptedSpec,
  type DelegateSpecFactory,
  type DelegateSpecWrapper,
  type ResolvedSpec,
} from "./delegate-spec.js";
export { createDelegateSpecRegistry, registerBackendSpecs } from "./backends/register-specs.js";
export {
  RelevanceDelegate,
  relevanceOf,
  type RelevanceDelegateOptions,
  type RelevanceEncoder,
} from "./relevance.js";
export { proposalChannel, type ProposalEvent } from "./proposal-channel.js";
export { routerTool, type RouterToolOptions } from "./router-tool.js";
export { LocalDelegate, type LocalDelegateOptions } from "./backends/local-delegate.js";
export { LlamaServerDelegate, type LlamaServerDelegateOptions } from "./backends/llama-server-delegate.js";
export {
  OpenAICompatibleDelegate,
  type OpenAICompatibleDelegateOptions,
} from "./backends/openai-compatible-delegate.js";
export {
  HttpDelegate,
  HTTP_DELEGATE_DEFAULTS,
  type HttpDelegateOptions,
  type HttpDelegateSettings,
  type HttpProposeCall,
} from "./backends/http-delegate.js";
export { CalibratedDelegate } from "./backends/calibrated-delegate.js";
export {
  CachedDelegate,
  cacheProposals,
  proposalCacheKey,
  type CachedDelegateOptions,
} from "./backends/cached-delegate.js";
