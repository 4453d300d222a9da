import { serializeError } from "../errors/deputy-error.js";
import { InvalidOptionError } from "../errors/invalid-option-error.js";
import { toTool, type Tool, type ToolContext } from "../tools/define-tool.js";
import { approvalReason } from "../tools/tool-approval.js";
import { toolSpec } from "./delegate-unit.js";
import { proposeAndJudge } from "./propose-and-judge.js";
import { buildProposalSchema } from "./proposal-schema.js";
import type { ToolCallDelegate } from "./protocol.js";
import type { TraceSink } from "../traces/trace.js";

/** Options of {@link routerTool}. */
export interface RouterToolOptions {
  /** The tool's name as the agent sees it. */
  name: string;
  /** What it does, for the agent. Default: a sentence listing the tools it routes to. */
  description?: string;
  /** The fast backend that picks the call. */
  delegate: ToolCallDelegate;
  /** The tools it may route to (at most the delegate's `maxTools`). */
  tools: Tool[];
  /** Below this confidence the call is refused and the agent decides itself. Default: no minimum. */
  minConfidence?: number;
  /** Both halves of the side-effect double key, as for a delegate node. Default `false`. */
  allowSideEffects?: boolean;
  /**
   * Where each proposal's trace goes, as for a delegate node (run = the agent's trace id, node = the router's
   * `name`). Every proposal is also published on `deputy:proposal`. Default: no trace.
   */
  traceSink?: TraceSink;
}

/**
 * A delegate backend as an agent's fast tool-router: the agent hands over a plain-language request; the small
 * model proposes one call among `tools`; the accept gate (schema, tools, side effects, confidence) decides, by
 * the same `proposeAndJudge` as a delegate node (traced to `traceSink`, published on `deputy:proposal`); an
 * accepted call runs and its result comes back. A rejection comes back as data
 * (`{ error: "rejected", verdict, reason }`), so the agent can decide itself — never a crash.
 *
 * @example
 * const route = routerTool({ name: "quick_action", delegate: local, tools: [lookupUser, resetPassword] });
 * const agent = defineAgent({ name: "Support", backend, tools: [route], actions: { help: (q) => q } });
 */
export function routerTool(options: RouterToolOptions): Tool {
  const { delegate, tools } = options;
  if (tools.length === 0 || tools.length > delegate.maxTools) {
    throw new InvalidOptionError(
      "routerTool.tools",
      `1 to ${delegate.maxTools} tools (the delegate's maxTools)`,
      tools.length,
    );
  }
  const byName = new Map(tools.map((t) => [t.name, t]));
  const specs = tools.map(toolSpec);
  const schema = buildProposalSchema(specs);
  const names = tools.map((t) => t.name);
  return toTool({
    name: options.name,
    description:
      options.description ??
      `Describe in plain words what should be done; a fast local model picks and runs one of: ${names.join(", ")}.`,
    input: {
      type: "object",
      properties: {
        request: {
          type: "string",
          description: "What should be done, in plain language, with the values it needs",
        },
        facts: { type: "object", description: "Values the call may need, by name" },
      },
      required: ["request"],
      additionalProperties: false,
    },
    run: async (args: { request: string; facts?: Record<string, unknown> }, ctx: ToolContext) => {
      const { gate } = await proposeAndJudge(delegate, {
        request: {
          instruction: args.request,
          facts: args.facts ?? {},
          tools: specs,
          schema,
          signal: ctx.signal,
          // A replaying backend keys its answers by this, and traces name it: the router's name stands in for a
          // node id, the agent's run (its trace id) for the run.
          context: { runId: ctx.runId, nodeId: options.name },
        },
        gate: {
          candidates: names,
          findTool: (name) => byName.get(name),
          allowSideEffects: {
            node: options.allowSideEffects === true,
            host: options.allowSideEffects === true,
          },
          ...(options.minConfidence === undefined ? {} : { minConfidence: options.minConfidence }),
        },
        traceSink: options.traceSink,
      });
      if (gate.verdict !== "accepted") {
        return {
          error: "rejected",
          verdict: gate.verdict,
          reason: gate.reason,
          message: "Decide and act yourself.",
        };
      }
      // A router runs inside an agent's call, which cannot pause for a person: a call that needs approval is
      // refused, never run.
      const approval = await approvalReason(gate.tool!, gate.call!.arguments, ctx);
      if (approval !== undefined) {
        return {
          error: "approval_required",
          tool: gate.call!.name,
          reason: approval,
          message: "It was not called: it needs a person's approval. Decide and act yourself.",
        };
      }
      try {
        const result = await gate.tool!.run(gate.call!.arguments, ctx);
        return { tool: gate.call!.name, arguments: gate.call!.arguments, result };
      } catch (error) {
        return { error: "tool_failed", tool: gate.call!.name, ...serializeError(error) };
      }
    },
  });
}
