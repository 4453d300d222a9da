import { z } from "zod";
import type { PlanIssue } from "../errors/plan-validation-error.js";
import { compileGuard } from "../runtime/cel-guard.js";
import type { ValidationContext } from "../plan/node-executor.js";
import type { DefinedNodeType } from "../plan/node-type.js";
import { compileSchema } from "../schema/validator.js";
import type { Spend } from "../records/spend.js";
import { spendSchema as strictSpendSchema } from "../store/spend-schema.js";
import type { Tool } from "../tools/define-tool.js";
import { didYouMean } from "../tools/did-you-mean.js";
import { delegateNodeExecutor } from "./delegate-node-executor.js";
import { delegateNodeFields, type DelegateNode } from "./delegate-node.js";
import { delegateHost } from "./host-capabilities.js";
import { buildProposalSchema } from "./proposal-schema.js";
import type { ToolSpec } from "./protocol.js";

// Not strict, as before: a kept spend's unknown keys are dropped, not an error.
const spendSchema = z.object(strictSpendSchema.shape);

/**
 * What a delegate unit keeps (its `details`): the verdict and why, the proposed tool and its confidence, the
 * backend and every hop, who resolved it and what an `escalate_to` agent spent. Open: a resolution adds who
 * decided.
 */
export const delegateDetailsSchema = z.looseObject({
  verdict: z.string().optional(),
  reason: z.string().optional(),
  tool: z.string().optional(),
  confidence: z.number().nullable().optional(),
  backend: z.string().nullable().optional(),
  hops: z
    .array(
      z.looseObject({
        backend: z.string(),
        verdict: z.string(),
        source: z.string(),
        confidence: z.number().nullable(),
        latencyMs: z.number(),
      }),
    )
    .optional(),
  resolvedBy: z.string().optional(),
  attempts: z.int().min(1).optional(),
  spend: spendSchema.optional(),
});

/**
 * The `delegate` node type: a small model proposes one tool call for the rendered instruction and facts, the
 * accept gate judges it, and only an accepted call runs. It reads the host's delegate backends, trace sink,
 * side-effect key, escalation handler and agents (`escalate_to`).
 */
export const delegateNodeType: DefinedNodeType<"delegate", typeof delegateNodeFields> = {
  name: "delegate",
  fields: delegateNodeFields,
  templated: (node) => [
    ["instruction", node.instruction],
    ["facts", node.facts],
  ],
  validate: (node, ctx) => validateDelegateNode(node, ctx),
  tools: (node) => node.tools,
  executor: delegateNodeExecutor,
  capabilities: ["delegates", "traceSink", "allowDelegateSideEffects", "escalation", "agents"],
  details: delegateDetailsSchema,
  spend: (details) => details.spend as Spend | undefined,
  // A model may reword the task and swap the candidate tools; the gate's bar may only rise (in a model-written
  // plan, to at least the host's floor), and the plan half of the side-effect double key stays a person's.
  modelWrites: {
    free: ["instruction", "facts", "tools"],
    rules: {
      min_confidence: { rule: "rises", code: "lowered_min_confidence", floorCode: "below_confidence_floor" },
      allow_side_effects: { rule: "never", code: "allow_side_effects", default: false },
    },
    toolFields: ["tools"],
    nested: ["facts"],
    gated: true,
  },
  consoleView: (definition) =>
    typeof definition.min_confidence === "number"
      ? { threshold: { label: "min_confidence", value: definition.min_confidence } }
      : {},
};

/**
 * The delegate node's own checks, reported with every other validation issue: no delegate configured, more
 * tools than every backend's `maxTools`, unknown tools (with a did-you-mean), invalid `accept_when`, a tool
 * schema that does not compile, a proposal schema a backend cannot enforce (`checkSchema`), and — as warnings —
 * tools the side-effect double key would always deny, an `escalate_to` that cannot be served, and a
 * `retry_backend` with nothing to retry.
 */
export function validateDelegateNode(node: DelegateNode, ctx: ValidationContext): PlanIssue[] {
  const issues: PlanIssue[] = [];
  const add = (code: string, message: string, path?: string, severity: PlanIssue["severity"] = "error") =>
    issues.push({ code, message, nodeId: node.id, ...(path ? { path } : {}), severity });
  const host = delegateHost(ctx.host);

  const tools: Tool[] = [];
  node.tools.forEach((name, i) => {
    const tool = host.tools.find(name);
    if (tool) tools.push(tool);
    else add("unknown_tool", `unknown tool "${name}"${host.tools.unknownHint(name)}`, `tools[${i}]`);
  });

  if (host.delegates.length === 0) {
    add(
      "delegate_not_configured",
      "no delegate backend is configured for delegate nodes (use --delegate or the `delegates` option)",
    );
  } else if (!host.delegates.some((d) => d.maxTools >= node.tools.length)) {
    const limits = host.delegates.map((d) => `${d.name}: ${d.maxTools}`).join(", ");
    add(
      "too_many_tools",
      `${node.tools.length} tools, more than any configured backend accepts (${limits})`,
      "tools",
    );
  }

  const fitting = host.delegates.filter((d) => d.maxTools >= node.tools.length).length;
  if (node.on_reject === "retry_backend" && fitting * node.retry.max_attempts === 1) {
    add(
      "retry_backend_single_try",
      "on_reject is retry_backend but only one proposal can be asked (one fitting backend, retry.max_attempts 1); raise retry.max_attempts or add a backend",
      "on_reject",
      "warning",
    );
  }

  const sideEffectsAllowed = node.allow_side_effects && host.allowDelegateSideEffects;
  for (const tool of tools) {
    if (tool.delegateSafe || sideEffectsAllowed) continue;
    const missing = [
      node.allow_side_effects ? undefined : "the node's allow_side_effects",
      host.allowDelegateSideEffects
        ? undefined
        : "the host's allowDelegateSideEffects (--allow-delegate-side-effects)",
    ].filter(Boolean);
    add(
      "side_effect_always_denied",
      `tool "${tool.name}" is not delegateSafe and ${missing.join(" and ")} ${missing.length > 1 ? "are" : "is"} not set, so every proposal of it will be side_effect_denied`,
      "tools",
      "warning",
    );
  }

  if (node.accept_when) {
    try {
      compileGuard(node.accept_when);
    } catch (error) {
      add("invalid_cel", (error as Error).message, "accept_when");
    }
  }

  if (node.escalate_to && node.on_reject !== "escalate") {
    add(
      "escalate_to_unused",
      `escalate_to is only used when on_reject is "escalate" (it is "${node.on_reject}")`,
      "escalate_to",
      "warning",
    );
  } else if (node.escalate_to && !host.escalation) {
    add(
      "escalate_to_unavailable",
      `escalate_to "${node.escalate_to}" cannot be served (no escalate_to handler is installed); escalations will pause for a person`,
      "escalate_to",
      "warning",
    );
  } else if (node.escalate_to && host.agents.find(node.escalate_to) === undefined) {
    const hint = didYouMean(node.escalate_to, host.agents.names());
    add(
      "escalate_to_unknown_agent",
      `escalate_to names "${node.escalate_to}", which is not a registered agent${hint ? ` (did you mean "${hint}"?)` : ""}; escalations will pause for a person`,
      "escalate_to",
      "warning",
    );
  }

  if (tools.length > 0) {
    const specs: ToolSpec[] = tools.map((t) => ({
      name: t.name,
      description: t.description,
      parameters: t.parameters,
    }));
    let schema;
    try {
      schema = buildProposalSchema(specs);
      compileSchema(schema);
    } catch (error) {
      add(
        "invalid_tool_schema",
        `the candidate tools' schemas do not compile: ${(error as Error).message}`,
        "tools",
      );
      return issues;
    }
    for (const backend of host.delegates) {
      if (backend.maxTools < specs.length || !backend.checkSchema) continue;
      const problem = backend.checkSchema(schema);
      if (problem)
        add(
          "schema_unsupported",
          `backend "${backend.name}" cannot enforce the proposal schema: ${problem}`,
          "tools",
        );
    }
  }
  return issues;
}
