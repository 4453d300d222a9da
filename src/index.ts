/**
 * deputy — delegation in LLM systems.
 *
 * This root entry is the composition root: it wires the built-in executors (tool, delegate, agent) into the
 * engine, which itself knows no node type (see `docs/architecture.md`).
 *
 * @packageDocumentation
 */
import { agentNodeExecutor } from "./agents/agent-node-executor.js";
import { escalateToAgent } from "./agents/escalate-to-agent.js";
import {
  planDelegation,
  type DelegateToPlanSpec,
  type PlanDelegationOptions,
} from "./agents/delegate-to-plan.js";
import "./delegate/host-capabilities.js";
import { delegateNodeExecutor } from "./delegate/delegate-node-executor.js";
import { ESCALATE_TO_SERVICE } from "./delegate/escalation/escalate-to.js";
import type { ToolCallDelegate } from "./delegate/protocol.js";
import { AgentDefinitionError } from "./errors/agent-definition-error.js";
import type { ExecutionHost } from "./plan/node-executor.js";
import type { RunManifest } from "./plan/run-manifest.js";
import type { EngineOptions, ExecutorTable } from "./plan/run-options.js";
import { continueRun, startRun } from "./plan/run-plan.js";
import type { RunStore } from "./plan/run-store.js";
import { toolNodeExecutor } from "./plan/tool-node-executor.js";
import type { Tool } from "./tools/define-tool.js";
import { ToolRegistry } from "./tools/tool-registry.js";
import type { TraceSink } from "./traces/trace.js";

/** The built-in executors, one per node type. */
export const builtInExecutors: ExecutorTable = {
  tool: toolNodeExecutor,
  delegate: delegateNodeExecutor,
  agent: agentNodeExecutor,
};

/** What a run is wired with: the tools, delegate backends, agents and policies its nodes use. */
export interface HostOptions {
  /** The tools the plan may call: a registry, or tools/definitions/plain objects. */
  tools: ToolRegistry | Iterable<Tool | object>;
  /** The delegate backend chain for delegate nodes, first to last. Default: none. */
  delegates?: ToolCallDelegate[];
  /** Where delegate traces go. Default: nowhere. */
  traceSink?: TraceSink;
  /** The host half of the side-effect double key. Default `false`. */
  allowDelegateSideEffects?: boolean;
  /** Agents by name, for agent nodes and `escalate_to`. */
  agents?: Record<string, unknown>;
  /** Executors by node type, replacing or adding to the built-in ones. */
  executors?: ExecutorTable;
  /** Extra services for custom executors (`ExecutionHost.services`). */
  services?: Record<string, unknown>;
}

/** Options of {@link runPlan}: what the run is wired with, plus how it goes. */
export interface RunOptions extends HostOptions, Omit<EngineOptions, "host" | "executors"> {}

/** Options of {@link resumeRun}: those of a run, plus the store it is in and the plan to check against it. */
export interface ResumeOptions extends Omit<RunOptions, "runId" | "artifacts" | "store"> {
  store: RunStore;
  /** The plan as it is now; refused when its fingerprint differs from the run's. Default: the stored plan. */
  plan?: unknown;
}

/** Builds the host and executor table a run (or a validation) uses: the composition of the built-in parts. */
export function createHost(options: HostOptions): { host: ExecutionHost; executors: ExecutorTable } {
  const tools = options.tools instanceof ToolRegistry ? options.tools : new ToolRegistry(options.tools);
  return {
    host: {
      tools,
      delegates: options.delegates ?? [],
      traceSink: options.traceSink,
      allowDelegateSideEffects: options.allowDelegateSideEffects ?? false,
      agents: options.agents ?? {},
      // escalate_to asks a registered agent; a user's own handler in `services` wins.
      services: { [ESCALATE_TO_SERVICE]: escalateToAgent, ...options.services },
    },
    executors: { ...builtInExecutors, ...options.executors },
  };
}

/**
 * Validates and runs a plan (the JSON object as given) with the built-in executors. Resolves with the run's
 * manifest whatever the run's status; rejects only when the plan is invalid (`PlanValidationError`, listing
 * every issue) or the store fails.
 *
 * @example
 * const manifest = await runPlan(JSON.parse(await readFile("plan.json", "utf8")), {
 *   tools: [fetchAlerts, fileTicket],
 *   store: new SqliteRunStore(".deputy/runs.db"),
 * });
 * if (manifest.status === "escalated") console.log(manifest.nodes.triage.escalations);
 */
export function runPlan(input: unknown, options: RunOptions): Promise<RunManifest> {
  return startRun(input, { ...options, ...createHost(options) });
}

/**
 * Continues a run from its last checkpoint: nodes and items that completed are not run again, failed and
 * blocked nodes are retried, unfinished for_each nodes go on with the items not yet stored, and escalations
 * that were resolved are applied. A plan whose fingerprint changed is refused.
 */
export function resumeRun(runId: string, options: ResumeOptions): Promise<RunManifest> {
  return continueRun(runId, { ...options, ...createHost(options) });
}

/** Options of {@link delegateToPlan}: the plan's wiring (as for {@link runPlan}) and how callers see it. */
export interface DelegateToPlanOptions
  extends HostOptions, Omit<PlanDelegationOptions, "host" | "executors"> {}

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
export function delegateToPlan(plan: unknown, options: DelegateToPlanOptions): DelegateToPlanSpec {
  if (typeof options !== "object" || options === null || options.tools === undefined) {
    const name = (plan as { name?: unknown } | null)?.name;
    throw new AgentDefinitionError(
      `delegateToPlan(${typeof name === "string" ? name : "…"}) needs options with \`tools\`: the tools the plan's nodes call (and \`agents\`, \`delegates\` for its agent and delegate nodes).`,
    );
  }
  const { tools, delegates, traceSink, allowDelegateSideEffects, agents, executors, services, ...rest } =
    options;
  const composed = createHost({
    tools,
    delegates,
    traceSink,
    allowDelegateSideEffects,
    agents,
    executors,
    services,
  });
  return planDelegation(plan, { ...rest, ...composed });
}
