import { AgentDefinitionError } from "../errors/agent-definition-error.js";
import { didYouMean } from "../tools/did-you-mean.js";
import { mergeBudgets, normalizeBudget } from "./budget.js";
import { delegation, TOOL_NAME, type Contract } from "./contract.js";
import {
  isAgent,
  type Agent,
  type DelegateToOptions,
  type DelegateToSpec,
  type DelegationBinding,
} from "./types.js";

// Declared in types.ts (they and the agent types refer to each other); exported here beside `delegateTo`.
export type { DelegateToOptions, DelegateToSpec, ParentContext } from "./types.js";

/**
 * Lets an agent delegate to `target`: every contract it declares (narrowed by `only`/`except`) becomes a tool.
 *
 * @example
 * delegateTo(classifier, { budget: { maxCalls: 1, timeout: 10 } })
 * delegateTo(knowledgeBase, { as: "search_help_centre", budget: { maxCalls: 3, maxTokens: 20_000 } })
 * delegateTo(vendorAgent, { action: "classify", description: "Classify a support ticket", input: z.object({ body: z.string() }) })
 */
export function delegateTo(target: Agent, options: DelegateToOptions = {}): DelegateToSpec {
  if (!isAgent(target)) {
    throw new AgentDefinitionError(
      `delegateTo() expects an agent made by defineAgent(), got ${describe(target)}. Define the sub-agent with defineAgent({ name, backend, actions, delegations }) and pass it here.`,
    );
  }
  const who = `delegateTo(${target.name})`;
  const budget = normalizeBudget(options.budget, `${who}.budget`);
  const actionNames = Object.keys(target.actions);
  let contracts: Contract[];
  if (options.action !== undefined) {
    if (!actionNames.includes(options.action)) {
      const hint = didYouMean(options.action, actionNames);
      throw new AgentDefinitionError(
        `${who}: agent \`${target.name}\` has no action \`${options.action}\`${hint ? ` (did you mean \`${hint}\`?)` : ""}. Its actions: ${actionNames.join(", ") || "none"}.`,
      );
    }
    const declared = target.contracts.find((c) => c.name === options.action);
    if (options.input !== undefined || options.returns !== undefined || !declared) {
      if (options.description === undefined || options.input === undefined) {
        throw new AgentDefinitionError(
          `${who}: \`${target.name}\` declares no contract for action \`${options.action}\`; declare it here with both \`description\` and \`input\` (and \`returns\` if it answers with data).`,
        );
      }
      contracts = [
        delegation(options.action, {
          description: options.description,
          input: options.input,
          ...(options.returns !== undefined ? { returns: options.returns } : {}),
          ...(options.onInvalid ? { onInvalid: options.onInvalid } : {}),
        }),
      ];
    } else contracts = [declared];
  } else {
    if (target.contracts.length === 0) {
      throw new AgentDefinitionError(
        `${who}: agent \`${target.name}\` does not declare any delegations. Either add one to it (\`delegations: [delegation("name", { description, input })]\`), or declare the contract here: delegateTo(${target.name}, { action: "…", description: "…", input: … }).`,
      );
    }
    contracts = narrow(target, options);
  }
  if ((options.as !== undefined || options.description !== undefined) && contracts.length > 1) {
    const which = options.as !== undefined ? "`as` renames one tool" : "`description` describes one tool";
    throw new AgentDefinitionError(
      `${who}: ${which}, but \`${target.name}\` exposes ${contracts.length} delegations (${contracts.map((c) => c.name).join(", ")}). Narrow with \`only: "${contracts[0]!.name}"\`.`,
    );
  }
  if (options.as !== undefined && (typeof options.as !== "string" || !TOOL_NAME.test(options.as))) {
    throw new AgentDefinitionError(
      `${who}: \`as\` must be a tool name (1–64 letters, digits, \`_\`, \`-\`), got ${describe(options.as)}.`,
    );
  }
  if (
    options.params !== undefined &&
    typeof options.params !== "function" &&
    (typeof options.params !== "object" || options.params === null)
  ) {
    throw new AgentDefinitionError(
      `${who}: \`params\` must be an object or a function of the calling run, got ${describe(options.params)}.`,
    );
  }
  const bindings = contracts.map((contract): DelegationBinding => ({
    tool: options.as ?? contract.name,
    description: options.description?.trim() || contract.description,
    parameters: contract.input,
    returns: contract.returns,
    onInvalid: contract.onInvalid,
    budget: mergeBudgets(contract.budget, budget),
    target,
    action: contract.name,
    backend: options.backend,
    params: options.params,
  }));
  return { kind: "deputy.delegate-to", target, bindings };
}

function narrow(target: Agent, options: DelegateToOptions): Contract[] {
  const declared = target.contracts.map((c) => c.name);
  const list = (v: string | string[] | undefined) =>
    v === undefined ? undefined : Array.isArray(v) ? v : [v];
  const only = list(options.only);
  const except = list(options.except);
  for (const [key, names] of [
    ["only", only],
    ["except", except],
  ] as const) {
    const unknown = (names ?? []).filter((n) => !declared.includes(n));
    if (unknown.length > 0) {
      throw new AgentDefinitionError(
        `delegateTo(${target.name}): \`${key}\` names ${unknown.map((n) => `\`${n}\``).join(", ")}, which \`${target.name}\` does not declare. Declared delegations: ${declared.join(", ")}.`,
      );
    }
  }
  const kept = target.contracts.filter(
    (c) => (!only || only.includes(c.name)) && !(except ?? []).includes(c.name),
  );
  if (kept.length === 0) {
    throw new AgentDefinitionError(
      `delegateTo(${target.name}): nothing is left to delegate after \`only\`/\`except\` (declared: ${declared.join(", ")}). Loosen the filter or drop this delegateTo.`,
    );
  }
  return kept;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "function") return `a function${value.name ? ` (${value.name})` : ""}`;
  if (typeof value === "object") return Array.isArray(value) ? "an array" : "an object that is not an agent";
  return typeof value === "string" ? JSON.stringify(value) : String(value);
}
