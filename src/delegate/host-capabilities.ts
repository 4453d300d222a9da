import type { ExecutionHost, WorkUnit } from "../plan/node-executor.js";
import type { EscalationAnswer, EscalationRequest as EscalationRequestOf } from "../records/escalation.js";
import type { JsonSchema } from "../schema/json-schema.js";
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

export type { EscalationAnswer } from "../records/escalation.js";
export type { ProposedCall } from "../records/hop.js";

/**
 * What an {@link EscalationHandler} is asked when a delegate node's proposal was rejected: the escalation's
 * question (the resolved instruction and facts, the candidate tools, the verdict, its reason and the proposal),
 * the agent, the unit and the signal, with the node and the candidates' proposal schema.
 */
export interface EscalationRequest extends EscalationRequestOf<WorkUnit> {
  node: DelegateNode;
  schema: JsonSchema;
}

/**
 * Decides a rejected delegate proposal in place of a person (`escalate_to`). Its call goes through the same
 * accept gate (minus the confidence checks) and runs only if accepted; a decline or a throw leaves the decision
 * to a person (the unit pauses). The composition root installs one that asks the named agent.
 */
export type EscalationHandler = (request: EscalationRequest) => Promise<EscalationAnswer>;
