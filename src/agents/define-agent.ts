import { randomUUID } from "node:crypto";
import { AgentDefinitionError } from "../errors/agent-definition-error.js";
import type { Tool } from "../tools/define-tool.js";
import { toTools } from "../tools/to-tools.js";
import type { ToolSpec } from "../tools/tool-spec.js";
import { mergeBackends, resolveBackend } from "./backend.js";
import { normalizeBudget } from "./budget.js";
import { isContract, type Contract } from "./contract.js";
import { callDelegation } from "./delegated-call.js";
import type { AnyBinding } from "./delegate-to-plan.js";
import { Frame } from "./frame.js";
import { runAction } from "./run-action.js";
import type {
  Action,
  Agent,
  AgentDefinition,
  AgentResult,
  DelegatedFunction,
  AgentRunOptions,
} from "./types.js";
import { systemClock } from "../runtime/clock.js";

/**
 * Defines an agent: a backend, instructions, actions that build prompts, its own tools, the contracts it
 * exposes (`delegations`) and the agents it may hand work to (`delegateTo`), under a `budget`.
 *
 * @example
 * const triage = defineAgent({
 *   name: "TriageAgent",
 *   backend: { provider: "openai", model: "gpt-4o" },
 *   budget: { maxCalls: 6, maxDuration: 45 },
 *   delegateTo: [
 *     delegateTo(classifier, { budget: { maxCalls: 1, timeout: 10 } }),
 *     delegateTo(knowledgeBase, { as: "search_help_centre", budget: { maxCalls: 3, maxTokens: 20_000 } }),
 *   ],
 *   actions: {
 *     triage: ({ ticket }: { ticket: string }) => `Triage this ticket. Classify it first, then find the article that answers it.\n\n${ticket}`,
 *   },
 * });
 * const { text, ledger, ledgers } = await triage.run("triage", { ticket });
 */
export function defineAgent<Actions extends Record<string, Action>>(
  definition: AgentDefinition<Actions>,
): Agent<Actions> {
  if (typeof definition !== "object" || definition === null)
    throw new AgentDefinitionError("defineAgent() needs a definition object.");
  const name = definition.name;
  if (typeof name !== "string" || name.trim() === "")
    throw new AgentDefinitionError(
      "defineAgent() needs a non-empty `name` (it appears in events, ledgers and errors).",
    );
  const fail = (message: string): never => {
    throw new AgentDefinitionError(`Agent \`${name}\`: ${message}`, { agent: name });
  };
  if (definition.backend === undefined)
    fail("`backend` is required: a model instance, or `{ provider, model, ...options }`.");
  resolveBackend(definition.backend, name); // fail now, not on the first run
  const actions = definition.actions;
  if (typeof actions !== "object" || actions === null || Object.keys(actions).length === 0)
    fail("`actions` must name at least one action: `{ triage: (input) => prompt }`.");
  for (const [key, fn] of Object.entries(actions))
    if (typeof fn !== "function") fail(`action \`${key}\` must be a function that builds a prompt.`);
  const contracts: Contract[] = [];
  for (const c of definition.delegations ?? []) {
    if (!isContract(c))
      fail('`delegations` must hold contracts made with delegation("name", { description, input }).');
    if (!(c.name in actions))
      fail(`delegation \`${c.name}\` has no action of that name; add \`actions.${c.name}\`.`);
    if (contracts.some((o) => o.name === c.name)) fail(`delegation \`${c.name}\` is declared twice.`);
    contracts.push(c);
  }
  const ownTools: Tool[] = toTools(definition.tools ?? [], `${name}.tools`);
  const taken = new Map<string, string>();
  for (const t of ownTools) {
    if (taken.has(t.name)) fail(`tool \`${t.name}\` is declared twice.`);
    taken.set(t.name, "one of its own tools");
  }
  const bindings: AnyBinding[] = [];
  for (const spec of definition.delegateTo ?? []) {
    if (spec?.kind !== "deputy.delegate-to")
      fail(
        "`delegateTo` must hold declarations made with delegateTo(agent, options) or delegateToPlan(plan, options).",
      );
    for (const binding of spec.bindings) {
      const other = taken.get(binding.tool);
      if (other)
        fail(
          `the tool \`${binding.tool}\` of delegateTo(${spec.target.name}) collides with ${other}; rename it with \`as: "…"\`.`,
        );
      taken.set(binding.tool, `the tool of delegateTo(${binding.target.name})`);
      bindings.push(binding);
    }
  }
  const maxDepth = definition.maxDepth ?? 3;
  if (!Number.isInteger(maxDepth) || maxDepth < 0)
    fail(`\`maxDepth\` must be a non-negative integer, got ${String(maxDepth)}.`);
  const maxSteps = definition.maxSteps ?? 10;
  if (!Number.isInteger(maxSteps) || maxSteps < 1)
    fail(`\`maxSteps\` must be a positive integer, got ${String(maxSteps)}.`);

  const agent: Agent<Actions> = {
    kind: "deputy.agent",
    name,
    backend: definition.backend,
    actions,
    contracts,
    budget: normalizeBudget(definition.budget, `${name}.budget`),
    maxDepth,
    maxSteps,
    instructions: definition.instructions,
    ownTools,
    bindings,
    delegated: {},
    run: (action, input, options) => runTopLevel(agent as Agent, action, input, options),
    toolSpecs: (): ToolSpec[] => [
      ...ownTools.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters })),
      ...bindings.map((b) => ({ name: b.tool, description: b.description, parameters: b.parameters })),
    ],
  };
  const delegated: Record<string, DelegatedFunction> = {};
  for (const binding of bindings)
    delegated[binding.tool] = (args, options) => callDirectly(agent as Agent, binding, args, options);
  (agent as { delegated: Record<string, DelegatedFunction> }).delegated = Object.freeze(delegated);
  return Object.freeze(agent);
}

function setupFor(options: AgentRunOptions | undefined) {
  return {
    signal: options?.signal ?? new AbortController().signal,
    traceId: options?.traceId ?? randomUUID(),
    now: options?._internal?.now ?? systemClock,
    newId: options?._internal?.newId ?? (() => randomUUID()),
    params: options?.params ?? {},
  };
}

async function runTopLevel(
  agent: Agent,
  action: string,
  input: unknown,
  options: AgentRunOptions | undefined,
): Promise<AgentResult> {
  const s = setupFor(options);
  const backend = resolveBackend(mergeBackends(agent.backend, options?.backend), agent.name);
  const { frame: _frame, ...result } = await runAction(agent, action, input, {
    ...s,
    backend,
    depth: 0,
    parent: undefined,
    rates: undefined,
    returns: undefined,
  });
  return result;
}

/** A delegated tool called with no model in the loop: a fresh generation of the parent, one call. */
function callDirectly(
  agent: Agent,
  binding: AnyBinding,
  args: Record<string, unknown>,
  options: Omit<AgentRunOptions, "backend"> | undefined,
): Promise<unknown> {
  const s = setupFor(options);
  const frame = new Frame(
    agent.name,
    agent.budget,
    agent.maxDepth,
    s.traceId,
    0,
    undefined,
    s.now,
    undefined,
  );
  const caller = {
    agent: agent.name,
    action: binding.tool,
    params: s.params,
    signal: s.signal,
    depth: 0,
    traceId: s.traceId,
    input: args,
  };
  return callDelegation(frame, binding, args, {
    signal: s.signal,
    caller,
    now: s.now,
    newId: s.newId,
    run: runAction,
  });
}
