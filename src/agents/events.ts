import { channel } from "node:diagnostics_channel";
import type { BudgetViolation } from "../errors/budget-exceeded-error.js";
import { CHANNELS } from "../runtime/channels.js";
import { redactRecord } from "../runtime/redact-value.js";
import type { OnExceeded } from "./budget.js";
import type { LedgerTotals } from "./ledger.js";
import type { Usage } from "./usage.js";

/** How a delegated call ended. */
export type DelegationStatus =
  | "ok"
  | "invalid_result"
  | "timed_out"
  | "invalid_arguments"
  | "error"
  /** A plan delegation whose run is waiting for a person. */
  | "escalated";

/** Fields every delegation event carries. */
export interface DelegationEventBase {
  /** Shared by the top-level run and every sub-agent it (transitively) delegates to. */
  traceId: string;
  /** The delegating agent. */
  agent: string;
  /** The sub-agent. */
  delegate: string;
  /** The sub-agent's action. */
  action: string;
  /** The tool name the calling model used. */
  tool: string;
  /** 1 for a delegation of the top-level agent, 2 for one of its sub-agents, … */
  depth: number;
  /** The delegated call this one runs inside, when nested. */
  parentCallId: string | undefined;
}

/** Published on `deputy:delegation-start` when a delegated call starts (after arguments and budgets cleared). */
export interface DelegationStartEvent extends DelegationEventBase {
  callId: string;
  arguments: Record<string, unknown>;
  provider: string;
  model: string;
  /** For a plan delegation: the plan run's id (in the store it ran with). */
  runId?: string;
}

/**
 * Published on `deputy:delegation` when a delegated call ends (also for `invalid_arguments`, with no call made:
 * then its arguments are as the model wrote them and it has no provider or model).
 */
export interface DelegationEvent extends Omit<DelegationStartEvent, "arguments" | "provider" | "model"> {
  arguments: unknown;
  provider: string | undefined;
  model: string | undefined;
  durationMs: number;
  /** Tokens the sub-agent spent, nested delegations included. */
  usage: Usage;
  /** USD, nested delegations included (0 without rates). */
  cost: number;
  /** The delegating agent's running agent-wide ledger. */
  ledger: LedgerTotals;
  /** The running ledger of this delegation. */
  delegationLedger: LedgerTotals;
  status: DelegationStatus;
  /** For `invalid_arguments`, `invalid_result` and `error`: what went wrong. */
  issues?: string[];
}

/**
 * Published on `deputy:delegation-refused` when a budget or `maxDepth` refuses a call: the violated limit
 * (`limit`, `allowed`, `used`, and `scope`: an agent-wide ceiling or a delegation's own limit), whose budget it
 * is and what it does at its ceiling.
 */
export interface DelegationRefusedEvent
  extends DelegationEventBase, Pick<BudgetViolation, "limit" | "allowed" | "used" | "scope"> {
  /** The agent owning the budget that refused (an ancestor, for a nested call). */
  budgetOwner: string;
  policy: OnExceeded;
}

/** Channel names. Subscribe with `diagnostics_channel.subscribe(name, fn)`. */
export const DELEGATION_START_CHANNEL = CHANNELS.delegationStart;
export const DELEGATION_CHANNEL = CHANNELS.delegation;
export const DELEGATION_REFUSED_CHANNEL = CHANNELS.delegationRefused;

const startChannel = channel(DELEGATION_START_CHANNEL);
const delegateChannel = channel(DELEGATION_CHANNEL);
const refusedChannel = channel(DELEGATION_REFUSED_CHANNEL);

// Events carry arguments a model wrote and error messages a provider wrote: every one passes deputy's redactor,
// imported from runtime/ (not installed by an entry point), so a program that imports only `deputy-js/agents` or
// `deputy-js/plan` publishes the same redacted events as one that imports the root.
function scrubbed<T>(event: T): T {
  return redactRecord(event) as T;
}

/** @internal */
export function publishDelegationStart(event: DelegationStartEvent): void {
  if (startChannel.hasSubscribers) startChannel.publish(scrubbed(event));
}

/** @internal */
export function publishDelegation(event: DelegationEvent): void {
  if (delegateChannel.hasSubscribers) delegateChannel.publish(scrubbed(event));
}

/** @internal */
export function publishRefused(event: DelegationRefusedEvent): void {
  if (refusedChannel.hasSubscribers) refusedChannel.publish(scrubbed(event));
}
