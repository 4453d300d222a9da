/// <reference types="node" preserve="true" />
/**
 * `deputy-js/agents` — agent-to-agent delegation. A sub-agent declares what it does as a contract
 * ({@link delegation}); a parent hands work to it as a tool ({@link delegateTo}), under budgets, with ledgers,
 * on a backend chosen at the call site, observable through `node:diagnostics_channel` events. The tool loop is
 * owned step by step on top of the AI SDK provider specification (v4, and v3 instances of AI SDK 6), so any
 * provider instance works; {@link mockModel} (or `{ provider: "mock" }`) is a deterministic, offline one.
 *
 * @packageDocumentation
 */
export { defineAgent } from "./define-agent.js";
export { delegation, type Contract, type ContractOptions, type OnInvalid } from "./contract.js";
export {
  delegateTo,
  type DelegateToOptions,
  type DelegateToSpec,
  type ParentContext,
} from "./delegate-to.js";
export type {
  PlanDelegationOptions,
  DelegateToPlanSpec,
  PlanDelegationRunOptions,
  PlanTarget,
} from "./delegate-to-plan.js";
export type { Budget, OnExceeded } from "./budget.js";
export { Ledger, type LedgerTotals } from "./ledger.js";
export { Pricing, type Rates } from "./pricing.js";
export {
  mockModel,
  type MockModel,
  type MockModelOptions,
  type MockReply,
  type MockRequest,
} from "./mock-model.js";
export {
  registerProvider,
  type BackendSpec,
  type BackendOptions,
  type CallSettings,
  type ProviderFactory,
  type ResolvedBackend,
} from "./backend.js";
export {
  DELEGATION_CHANNEL,
  DELEGATION_START_CHANNEL,
  DELEGATION_REFUSED_CHANNEL,
  type DelegationEvent,
  type DelegationStartEvent,
  type DelegationStatus,
  type DelegationRefusedEvent,
} from "./events.js";
export { runAgentAction, type AgentActionOutcome } from "./run-agent-action.js";
export type { InvalidResult } from "./result.js";
export type { Usage } from "./usage.js";
export type { LanguageModel } from "./language-model.js";
export type { StepRecord, ToolChoice } from "./tool-loop.js";
export type {
  Action,
  ActionContext,
  ActionPrompt,
  Agent,
  AgentDefinition,
  AgentResult,
  DelegatedFunction,
  PromptMessage,
  AgentRunOptions,
} from "./types.js";
export {
  BudgetExceededError,
  InvalidResultError,
  AgentDefinitionError,
  type BudgetViolation,
  type BudgetLimit,
} from "../errors/index.js";
export { agentNodeExecutor } from "./agent-node-executor.js";
export { agentNodeType } from "./agent-node-type.js";
export type { AgentNode } from "./agent-node.js";
export { escalateToAgent } from "./escalate-to-agent.js";
