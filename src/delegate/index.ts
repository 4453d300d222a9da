/**
 * Tool-call delegates: a small model proposes exactly one tool call, constrained by one JSON Schema
 * ({@link buildProposalSchema}) and prompted the same way by every backend ({@link buildPrompt}); the
 * {@link acceptGate} decides whether it may run; {@link delegateNodeExecutor} runs `delegate` plan nodes with the
 * `on_reject` policies and escalation; traces go to a {@link TraceSink} such as {@link JsonlTraceSink} (redacted,
 * capped, rotated) and export to fine-tuning data ({@link tracesToChat}). {@link ScriptedDelegate} replays
 * proposals deterministically. Real model backends live in `./backends/`.
 */
export type {
  Proposal,
  ProposalUsage,
  ProposeContext,
  ProposeRequest,
  ToolCallDelegate,
  ToolSpec,
} from "./protocol.js";
import "./host-capabilities.js";
export type { DelegateTrace, TraceSink } from "../traces/trace.js";
export { buildProposalSchema } from "./proposal-schema.js";
export { strictSchema } from "./strict-schema.js";
export {
  buildPrompt,
  inputChars,
  sortedJson,
  type DelegatePrompt,
  type PromptInput,
} from "../tools/tool-call-prompt.js";
export { acceptGate, VERDICTS, type GateInput, type GateResult, type Verdict } from "./accept-gate.js";
export {
  judgeProposal,
  proposeAndJudge,
  type JudgeProposalInput,
  type Judged,
  type ProposeAndJudgeInput,
} from "./propose-and-judge.js";
export type { ProposalSource } from "./record-proposal.js";
export { delegateNodeExecutor, toolSpec, type HopSummary } from "./delegate-node-executor.js";
export { delegateNodeType, validateDelegateNode } from "./delegate-node-type.js";
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
  createDelegateFromSpec,
  delegateSpecKinds,
  numberOption,
  parseSpecValue,
  registerDelegateSpec,
  type DelegateSpecFactory,
} from "./delegate-spec.js";
export { JsonlTraceSink, type JsonlTraceSinkOptions } from "../traces/jsonl-trace-sink.js";
export { MemoryTraceSink } from "../traces/memory-trace-sink.js";
export { writeTrace } from "../traces/write-trace.js";
export { proposalChannel, type ProposalEvent } from "./proposal-channel.js";
export {
  capStrings,
  isSecretKey,
  REDACTED,
  Redactor,
  type RedactOptions,
  type RedactRule,
} from "../traces/redact.js";
export { readTraces } from "../traces/read-traces.js";
export {
  formatTraceStats,
  percentile,
  traceStats,
  type TraceGroupStats,
  type TraceStats,
} from "../traces/trace-stats.js";
export {
  tracesToChat,
  type ChatExample,
  type TraceExport,
  type TraceExportOptions,
} from "../traces/trace-export.js";
export { routerTool, type RouterToolOptions } from "./router-tool.js";
export * from "./backends/index.js";
export * from "../distill/index.js";
