import {
  planDelegation,
  type DelegateToPlanSpec,
  type PlanDelegationOptions,
} from "../agents/delegate-to-plan.js";
import { AgentDefinitionError } from "../errors/agent-definition-error.js";
import type { NodeType } from "../plan/node-type.js";
import type { UntypedPlan } from "../plan/plan-input.js";
import { createHost, type HostOptions } from "./host.js";
import type { PlanInput } from "./node-types.js";

/** Options of {@link delegateToPlan}: the plan's wiring (as for {@link runPlan}) and how callers see it. */
export interface DelegateToPlanOptions<Extra extends NodeType<any> = NodeType<any>>
  extends HostOptions<Extra>, Omit<PlanDelegationOptions, "host" | "nodeTypes"> {}

/**
 * Lets an agent delegate to an execution plan: the calling model sees one tool whose parameters are the plan's
 * declared `inputs`; a call checks the arguments like a contract, runs the plan with them (under the call's
 * budget and timeout) and answers with the artifact the plan `returns`. The plan is validated now, against
 * the tools, agents and delegates given here.
 *
 * @example
 * const triage = defineAgent({
 *   name: "TriageAgent",
 *   backend: { provider: "openai", model: "gpt-4o" },
 *   delegateTo: [
 *     delegateToPlan(triageQueuePlan, {
 *       name: "triage_queue",
 *       description: "Classify every open ticket of a queue and summarise the queue",
 *       tools: [listTickets],
 *       agents: { classifier, summarizer },
 *       budget: { maxCalls: 1, maxTokens: 50_000, timeout: 120 },
 *     }),
 *   ],
 *   actions: { run: ({ ask }: { ask: string }) => ask },
 * });
 */
export function delegateToPlan<Extra extends NodeType<any> = never>(
  plan: NoInfer<PlanInput<Extra>>,
  options: DelegateToPlanOptions<Extra>,
): DelegateToPlanSpec;
/** A plan only known at run time: `unknown` or `any` (a parsed file), validated now as any other. */
export function delegateToPlan<const P>(
  plan: UntypedPlan<P>,
  options: DelegateToPlanOptions,
): DelegateToPlanSpec;
export function delegateToPlan(plan: unknown, options: DelegateToPlanOptions): DelegateToPlanSpec {
  if (typeof options !== "object" || options === null || options.tools === undefined) {
    const name = (plan as { name?: unknown } | null)?.name;
    throw new AgentDefinitionError(
      `delegateToPlan(${typeof name === "string" ? name : "…"}) needs options with \`tools\`: the tools the plan's nodes call (and \`agents\`, \`delegates\` for its agent and delegate nodes).`,
    );
  }
  const {
    tools,
    delegates,
    traceSink,
    allowDelegateSideEffects,
    agents,
    nodeTypes,
    executors,
    escalation,
    ...rest
  } = options;
  const composed = createHost({
    tools,
    delegates,
    traceSink,
    allowDelegateSideEffects,
    agents,
    ...(nodeTypes ? { nodeTypes } : {}),
    executors,
    escalation,
  });
  return planDelegation(plan, { ...rest, ...composed });
}
