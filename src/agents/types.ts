import type { Clock } from "../runtime/clock.js";
import type { ToolSpec } from "../tools/tool-spec.js";
import type { SchemaInput } from "../schema/json-schema.js";
import type { Tool } from "../tools/define-tool.js";
import type { ToolsInput } from "../tools/to-tools.js";
import type { BackendSpec, CallSettings } from "./backend.js";
import type { Budget } from "./budget.js";
import type { Contract } from "./contract.js";
import type { DelegateToSpec } from "./delegate-to.js";
import type { AnyBinding, DelegateToPlanSpec } from "./delegate-to-plan.js";
import type { LedgerTotals } from "./ledger.js";
import type { StepRecord, ToolChoice } from "./tool-loop.js";
import type { Usage } from "./usage.js";

/** What an action (and `instructions`, and a `params` function) receives besides its input. */
export interface ActionContext {
  /** The agent running the action. */
  agent: string;
  action: string;
  /** Params given to `run` (or forwarded by a call site's `params`). */
  params: Record<string, unknown>;
  signal: AbortSignal;
  /** 0 for a top-level run, 1 for a delegated one, … */
  depth: number;
  traceId: string;
}

/** A message of a multi-turn prompt. */
export interface PromptMessage {
  role: "user" | "assistant";
  content: string;
}

/** What an action builds: the prompt, plus per-action options. A plain string is `{ prompt }`. */
export interface ActionPrompt {
  /** The user message. */
  prompt?: string;
  /** Earlier turns (before `prompt`). */
  messages?: PromptMessage[];
  /** Appended to the agent's instructions for this action. */
  system?: string;
  /** Which delegations to offer: all (`true`, default), none (`false`), or a list of tool names. */
  delegations?: boolean | string[];
  /**
   * Tools for this action only; they sit beside the agent's tools and the delegated ones. A list, or a record
   * by name (an AI SDK `ToolSet` fits).
   */
  tools?: ToolsInput;
  /** Default `"auto"`; a function picks per step (e.g. `"required"` first, then `"none"`). */
  toolChoice?: ToolChoice | ((step: { stepNumber: number }) => ToolChoice);
  /** Model requests at most. Default: the agent's `maxSteps` (10). */
  maxSteps?: number;
  /** Parse the answer as data of this shape (the action's contract `returns` is used when there is one). */
  returns?: SchemaInput;
  /** Call settings for this action (over the backend's). */
  settings?: CallSettings;
}

/** An action: builds the prompt from the input. */
export type Action<Input = any> = (
  input: Input,
  ctx: ActionContext,
) => string | ActionPrompt | Promise<string | ActionPrompt>;

/** Options of `agent.run`. */
export interface AgentRunOptions {
  params?: Record<string, unknown>;
  signal?: AbortSignal;
  /** Use this backend for this run (merged like a call site's `backend`). */
  backend?: BackendSpec;
  /** Trace id shared with sub-agents; default a new UUID. */
  traceId?: string;
  /** @internal Clock (ms) and ids for deterministic tests. */
  _internal?: { now?: Clock; newId?: () => string };
}

/** What `agent.run` returns. */
export interface AgentResult<Data = unknown> {
  /** The final answer's text. */
  text: string;
  /** The parsed, validated answer when the action declares `returns`. */
  data: Data | undefined;
  /** Tokens of this agent's own model requests (sub-agents' are in `ledger`). */
  usage: Usage;
  /** USD of this agent's own requests (0 without rates). */
  cost: number;
  /** Agent-wide delegation ledger of this generation. */
  ledger: LedgerTotals;
  /** Per-delegation ledgers, by tool name. */
  ledgers: Record<string, LedgerTotals>;
  steps: StepRecord[];
  finishReason: string;
  traceId: string;
  /** The model that answered (`provider:modelId`). */
  model: string;
}

/** Options of `defineAgent`. */
export interface AgentDefinition<Actions extends Record<string, Action> = Record<string, Action>> {
  /** Used in events, ledgers and error messages. */
  name: string;
  /** A model instance (v3 provider specification) or `{ provider, model, ...options }`. */
  backend: BackendSpec;
  /** The system prompt. */
  instructions?: string | ((ctx: ActionContext) => string);
  actions: Actions;
  /** The agent's own tools, offered on every action: a list, or a record by name (an AI SDK `ToolSet` fits). */
  tools?: ToolsInput;
  /** Contracts this agent exposes to callers (each names one of `actions`). */
  delegations?: Contract[];
  /** Agents (`delegateTo`) and plans (`delegateToPlan`) this agent may delegate to. */
  delegateTo?: (DelegateToSpec | DelegateToPlanSpec)[];
  /** Ceiling for every delegation this agent makes in one generation (nested ones included). */
  budget?: Budget;
  /** How many levels of delegation may run below this agent. Default 3. */
  maxDepth?: number;
  /** Model requests per action at most. Default 10. */
  maxSteps?: number;
}

/** A delegated tool called directly (no model in the loop): returns exactly what a calling model would read. */
export type DelegatedFunction = (
  args: Record<string, unknown>,
  options?: Omit<AgentRunOptions, "backend">,
) => Promise<unknown>;

/** An agent made by `defineAgent`. */
export interface Agent<Actions extends Record<string, Action> = Record<string, Action>> {
  readonly kind: "deputy.agent";
  readonly name: string;
  readonly backend: BackendSpec;
  readonly actions: Readonly<Actions>;
  readonly contracts: readonly Contract[];
  readonly budget: Budget;
  readonly maxDepth: number;
  readonly maxSteps: number;
  readonly instructions: AgentDefinition["instructions"];
  /** Own tools. */
  readonly ownTools: readonly Tool[];
  /** @internal Resolved delegations. */
  readonly bindings: readonly AnyBinding[];
  /** Delegated tools as ordinary functions, by tool name. */
  readonly delegated: Readonly<Record<string, DelegatedFunction>>;
  /** Runs an action's tool loop. */
  run<A extends keyof Actions & string>(
    action: A,
    input?: Parameters<Actions[A]>[0],
    options?: AgentRunOptions,
  ): Promise<AgentResult>;
  /** The tools (own and delegated) a model sees on an action that offers all delegations. */
  toolSpecs(): ToolSpec[];
}

/** Is `value` an agent made by `defineAgent`? */
export function isAgent(value: unknown): value is Agent {
  return typeof value === "object" && value !== null && (value as Agent).kind === "deputy.agent";
}
