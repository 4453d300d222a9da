import { escalateToAgent } from "../agents/escalate-to-agent.js";
import type { AgentCapabilities } from "../agents/host-capabilities.js";
import type { DelegateCapabilities, EscalationHandler } from "../delegate/host-capabilities.js";
import type { ToolCallDelegate } from "../delegate/protocol.js";
import { agentResolver } from "../plan/host-capabilities.js";
import type { ExecutionHost } from "../plan/node-executor.js";
import type { NodeType } from "../plan/node-type.js";
import { NodeTypeTable, type ExecutorTable } from "../plan/node-type-table.js";
import type { ToolsInput } from "../tools/to-tools.js";
import { ToolRegistry } from "../tools/tool-registry.js";
import type { TraceSink } from "../traces/trace.js";
import { builtInNodeTypes, type BuiltInNodeType } from "./node-types.js";

/**
 * deputy's host, whole: what the engine offers every executor (`ExecutionHost`: tools, agents by name, the budget
 * scope) and the capabilities of the built-in node types — the delegate nodes' (backends, trace sink, the
 * side-effect key, the escalation handler) and the agent nodes' (the delegated call a run executes inside). Each
 * part declares its own in its folder; this is the one place they meet. {@link createHost} builds one.
 */
export type DeputyHost = ExecutionHost & DelegateCapabilities & AgentCapabilities;

/** What a run is wired with: the tools, delegate backends, agents and policies its nodes use. */
export interface HostOptions<Extra extends NodeType<any> = NodeType<any>> {
  /**
   * The tools the plan may call: a registry, a list of tools/definitions, or a record by name (an AI SDK
   * `ToolSet` fits; its tools are not delegate-safe unless made with `fromAiSdkTools(set, { delegateSafe })`).
   */
  tools: ToolRegistry | ToolsInput;
  /** The delegate backend chain for delegate nodes, first to last. Default: none. */
  delegates?: ToolCallDelegate[];
  /** Where delegate traces go. Default: nowhere. */
  traceSink?: TraceSink;
  /** The host half of the side-effect double key. Default `false`. */
  allowDelegateSideEffects?: boolean;
  /** Agents by name, for agent nodes and `escalate_to`. */
  agents?: Record<string, unknown>;
  /**
   * Node types besides the built-in ones (`tool`, `delegate`, `agent`): a plan may then use their names as
   * `type`. A name already registered is an error. Default: none. See {@link defineNodeType}.
   */
  nodeTypes?: readonly Extra[];
  /** Executors by node type name, replacing a registered type's own (a test double, an instrumented one). */
  executors?: ExecutorTable;
  /**
   * Who decides rejected proposals of delegate nodes with `escalate_to`. Default: the named agent (from
   * `agents`); `false`: nobody, they pause for a person.
   */
  escalation?: EscalationHandler | false;
}

/**
 * Builds the host and node type table a run (or a validation) uses: the composition of the built-in parts,
 * plus the caller's node types and executors.
 */
export function createHost<Extra extends NodeType<any> = never>(
  options: HostOptions<Extra>,
): { host: DeputyHost; nodeTypes: NodeTypeTable<BuiltInNodeType | Extra> } {
  const tools = options.tools instanceof ToolRegistry ? options.tools : new ToolRegistry(options.tools);
  return {
    host: {
      tools,
      delegates: options.delegates ?? [],
      traceSink: options.traceSink,
      allowDelegateSideEffects: options.allowDelegateSideEffects ?? false,
      agents: agentResolver(options.agents),
      escalation: options.escalation === false ? undefined : (options.escalation ?? escalateToAgent),
      budget: undefined,
    },
    nodeTypes: new NodeTypeTable(
      (options.nodeTypes ? [...builtInNodeTypes, ...options.nodeTypes] : builtInNodeTypes) as readonly (
        BuiltInNodeType | Extra
      )[],
      options.executors,
    ),
  };
}
