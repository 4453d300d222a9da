import type { LanguageModelV4Message } from "@ai-sdk/provider";
import { AgentDefinitionError } from "../errors/agent-definition-error.js";
import { InvalidResultError } from "../errors/invalid-result-error.js";
import { toJsonSchema } from "../schema/json-schema.js";
import type { Tool } from "../tools/define-tool.js";
import { didYouMean } from "../tools/did-you-mean.js";
import { toTools } from "../tools/to-tools.js";
import { checkArguments } from "./arguments.js";
import { callDelegation } from "./delegated-call.js";
import { Frame } from "./frame.js";
import { costOf } from "./pricing.js";
import { checkResult } from "./result.js";
import { runToolLoop, type LoopTool } from "./tool-loop.js";
import { approvalReason } from "../tools/tool-approval.js";
import type { ActionContext, ActionPrompt, Agent, AgentResult, AnyBinding, RunSetup } from "./types.js";

/** Runs `action` of `agent` in a new frame: builds the prompt, offers the scoped tools, runs the loop. @internal */
export async function runAction(
  agent: Agent,
  action: string,
  input: unknown,
  setup: RunSetup,
): Promise<AgentResult & { frame: Frame }> {
  const build = agent.actions[action];
  if (typeof build !== "function") {
    const names = Object.keys(agent.actions);
    const hint = didYouMean(action, names);
    throw new AgentDefinitionError(
      `Agent \`${agent.name}\` has no action \`${action}\`${hint ? ` (did you mean \`${hint}\`?)` : ""}. Its actions: ${names.join(", ")}.`,
      { agent: agent.name },
    );
  }
  const ctx: ActionContext = {
    agent: agent.name,
    action,
    params: setup.params,
    signal: setup.signal,
    depth: setup.depth,
    traceId: setup.traceId,
  };
  const built = await build(input, ctx);
  const spec: ActionPrompt = typeof built === "string" ? { prompt: built } : built;
  if (
    typeof spec !== "object" ||
    spec === null ||
    (spec.prompt === undefined && (spec.messages ?? []).length === 0)
  ) {
    throw new AgentDefinitionError(
      `Action \`${agent.name}.${action}\` must return a prompt string or \`{ prompt, … }\`.`,
      { agent: agent.name },
    );
  }
  const frame = new Frame(
    agent.name,
    agent.budget,
    agent.maxDepth,
    setup.traceId,
    setup.depth,
    setup.parent,
    setup.now,
    setup.rates,
  );
  setup.onFrame?.(frame);
  const tools = offeredTools(agent, action, spec, frame, setup, { ...ctx, input });
  const prompt = buildPrompt(agent, spec, ctx);
  const returns = setup.returns ?? actionReturns(agent, action, spec);
  const modelId = setup.backend.model.modelId;
  let cost = 0;
  const loop = await runToolLoop({
    backend: spec.settings
      ? { model: setup.backend.model, settings: { ...setup.backend.settings, ...spec.settings } }
      : setup.backend,
    prompt,
    tools,
    ...(spec.toolChoice !== undefined ? { toolChoice: spec.toolChoice } : {}),
    maxSteps: spec.maxSteps ?? agent.maxSteps,
    ...(returns
      ? { responseFormat: { type: "json" as const, schema: returns.schema as never, name: returns.name } }
      : {}),
    signal: setup.signal,
    onStepUsage(usage) {
      const stepCost = costOf(usage, modelId, setup.rates);
      cost += stepCost;
      frame.recordUsage(usage, stepCost);
    },
  });
  let data: unknown;
  if (returns?.validate) {
    const check = checkResult(returns.schema, loop.text, `${agent.name}.${action}`);
    if (!check.ok) throw new InvalidResultError(`${agent.name}.${action}`, check);
    data = check.data;
  }
  const ledgers: AgentResult["ledgers"] = {};
  for (const [tool, ledger] of frame.ledgers) ledgers[tool] = ledger.toJSON();
  return {
    text: loop.text,
    data,
    usage: loop.usage,
    cost,
    ledger: frame.ledger.toJSON(),
    ledgers,
    steps: loop.steps,
    finishReason: loop.finishReason,
    traceId: setup.traceId,
    model: `${setup.backend.model.provider}:${modelId}`,
    frame,
  };
}

function actionReturns(agent: Agent, action: string, spec: ActionPrompt): RunSetup["returns"] {
  const schema =
    spec.returns !== undefined
      ? toJsonSchema(spec.returns)
      : agent.contracts.find((c) => c.name === action)?.returns;
  return schema ? { schema, name: `${action}_result`, validate: true } : undefined;
}

function buildPrompt(agent: Agent, spec: ActionPrompt, ctx: ActionContext): LanguageModelV4Message[] {
  const instructions =
    typeof agent.instructions === "function" ? agent.instructions(ctx) : agent.instructions;
  const system = [instructions, spec.system]
    .filter((s): s is string => typeof s === "string" && s.trim() !== "")
    .join("\n\n");
  const messages: LanguageModelV4Message[] = system ? [{ role: "system", content: system }] : [];
  for (const m of spec.messages ?? [])
    messages.push({ role: m.role, content: [{ type: "text", text: m.content }] });
  if (spec.prompt !== undefined)
    messages.push({ role: "user", content: [{ type: "text", text: spec.prompt }] });
  return messages;
}

function scopedBindings(
  agent: Agent,
  action: string,
  scope: ActionPrompt["delegations"],
): readonly AnyBinding[] {
  if (scope === undefined || scope === true) return agent.bindings;
  if (scope === false) return [];
  if (!Array.isArray(scope)) {
    throw new AgentDefinitionError(
      `Action \`${agent.name}.${action}\`: \`delegations\` must be true, false or a list of delegated tool names.`,
      { agent: agent.name },
    );
  }
  const known = agent.bindings.map((b) => b.tool);
  const unknown = scope.filter((n) => !known.includes(n));
  if (unknown.length > 0) {
    throw new AgentDefinitionError(
      `Action \`${agent.name}.${action}\` scopes unknown delegations ${unknown.map((n) => `\`${n}\``).join(", ")}. Known: ${known.join(", ") || "none (this agent has no delegateTo)"}.`,
      { agent: agent.name },
    );
  }
  return agent.bindings.filter((b) => scope.includes(b.tool));
}

function offeredTools(
  agent: Agent,
  action: string,
  spec: ActionPrompt,
  frame: Frame,
  setup: RunSetup,
  caller: ActionContext & { input: unknown },
): LoopTool[] {
  const extra = toTools(spec.tools ?? [], `${agent.name}.${action}.tools`);
  const taken = new Map<string, string>();
  for (const t of agent.ownTools) taken.set(t.name, "an agent tool");
  for (const b of agent.bindings) taken.set(b.tool, `a delegation to ${b.target.name}`);
  for (const t of extra) {
    const other = taken.get(t.name);
    if (other)
      throw new AgentDefinitionError(
        `Action \`${agent.name}.${action}\`: tool \`${t.name}\` collides with ${other}; rename one of them (delegations with \`as\`).`,
        { agent: agent.name },
      );
    taken.set(t.name, "an action tool");
  }
  const own = [...agent.ownTools, ...extra].map((tool) => ownLoopTool(tool, agent, action, setup));
  const delegated = scopedBindings(agent, action, spec.delegations).map((binding): LoopTool => ({
    name: binding.tool,
    description: binding.description,
    parameters: binding.parameters,
    execute: (args, _id, signal) =>
      callDelegation(frame, binding, args, {
        signal,
        caller,
        now: setup.now,
        newId: setup.newId,
        run: runAction,
      }),
  }));
  return [...own, ...delegated];
}

function ownLoopTool(tool: Tool, agent: Agent, action: string, setup: RunSetup): LoopTool {
  return {
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    async execute(args, toolCallId, signal) {
      const check = checkArguments(tool.parameters, args);
      if (!check.ok)
        return {
          error: "invalid_arguments",
          issues: check.issues,
          message: `The arguments do not match \`${tool.name}\`'s schema. Fix them and call it again.`,
        };
      const ctx = {
        signal,
        idempotencyKey: `${setup.traceId}/${toolCallId}`,
        runId: setup.traceId,
        nodeId: `${agent.name}.${action}`,
      };
      // An agent's tool loop has no pause for a person: a call that needs approval is refused, never run.
      const approval = await approvalReason(tool, check.value as Record<string, unknown>, ctx);
      if (approval !== undefined)
        return {
          error: "approval_required",
          message: `\`${tool.name}\` was not called: ${approval}, and an agent's call cannot wait for a person. Call it from a plan's tool node instead.`,
        };
      try {
        const out = await tool.run(check.value, { ...ctx, attempt: 1 });
        return out === undefined ? null : out;
      } catch (error) {
        if (signal.aborted) throw error;
        return { error: "tool_error", message: error instanceof Error ? error.message : String(error) };
      }
    },
  };
}
