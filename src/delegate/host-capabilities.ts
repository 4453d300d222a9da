import type { Spend } from "../store/run-state.js";
import type { ExecutionHost, WorkUnit } from "../plan/node-executor.js";
import type { JsonSchema } from "../schema/json-schema.js";
import type { ToolSpec } from "../tools/tool-spec.js";
import type { TraceSink } from "../traces/trace.js";
import type { DelegateNode } from "./delegate-node.js";
import type { ToolCallDelegate } from "./protocol.js";

/**
 * What delegate nodes read from the host (`delegateNodeType.capabilities`), declared here so the engine
 * (src/plan) imports nothing from delegate/; the composition root fills them (`DeputyHost`, `compose/host.ts`).
 */
export interface DelegateCapabilities {
  /** The delegate backend chain, first to last (`retry_backend` walks it). */
  delegates: ToolCallDelegate[];
  /** Where delegate traces go (none: nowhere). */
  traceSink: TraceSink | undefined;
  /** The host half of the side-effect double key. Default `false`. */
  allowDelegateSideEffects: boolean;
  /** Decides rejected delegate proposals for nodes with `escalate_to`; none: they pause for a person. */
  escalation: EscalationHandler | undefined;
}

/** A host with the delegate nodes' capabilities. */
export type DelegateHost = ExecutionHost & DelegateCapabilities;

/**
 * The host as delegate nodes see it. Sound because the engine validates every plan against its host first: a
 * host without `delegateNodeType.capabilities` never reaches a delegate node's checks or executor
 * (`missing_capability`).
 */
export function delegateHost(host: ExecutionHost): DelegateHost {
  return host as DelegateHost;
}

/** A call as proposed (by a delegate, an agent or a person), before the accept gate judged it. */
export interface ProposedCall {
  name: string | null;
  arguments?: Record<string, unknown>;
  confidence: number | null;
}

/** What an {@link EscalationHandler} is asked when a delegate node's proposal was rejected. */
export interface EscalationRequest {
  /** The node's `escalate_to` (a registered agent's name). */
  agent: string;
  node: DelegateNode;
  unit: WorkUnit;
  /** The resolved instruction and facts, the candidate tools and their proposal schema. */
  instruction: string;
  facts: Record<string, unknown>;
  tools: ToolSpec[];
  schema: JsonSchema;
  /** Why the delegate's proposal was rejected, and the proposal (when there was one). */
  verdict: string;
  reason: string;
  proposal: ProposedCall | undefined;
  signal: AbortSignal;
}

/** An {@link EscalationHandler}'s answer: a call, or a decline (`name: null`). */
export interface EscalationAnswer {
  name: string | null;
  arguments?: Record<string, unknown>;
  /** The arguments as the agent wrote them, when they are not a JSON object (the gate judges `invalid_args`). */
  unparsedArguments?: string;
  /** Shown in traces as the backend. Default `agent:<name>`. */
  backend?: string;
  /** What deciding spent (summed per node in the manifest). */
  spend?: Spend;
}

/**
 * Decides a rejected delegate proposal in place of a person (`escalate_to`). Its call goes through the same
 * accept gate (minus the confidence checks) and runs only if accepted; a decline or a throw leaves the decision
 * to a person (the unit pauses). The composition root installs one that asks the named agent.
 */
export type EscalationHandler = (request: EscalationRequest) => Promise<EscalationAnswer>;
