import type { LanguageModelV3, LanguageModelV4 } from "@ai-sdk/provider";
import type { ModelMessage, Output } from "ai";
import { InvalidOptionError } from "../errors/invalid-option-error.js";
import { PlanAuthoringError } from "../errors/plan-authoring-error.js";
import type { PlanIssue } from "../errors/plan-validation-error.js";
import { agentResolver } from "../plan/host-capabilities.js";
import type { ExecutionHost } from "../plan/node-executor.js";
import { planJsonSchema } from "../plan/plan-json-schema.js";
import { NodeTypeTable } from "../plan/node-type-table.js";
import { toolNodeType } from "../plan/tool-node-type.js";
import { validatePlan } from "../plan/validate-plan.js";
import type { JsonSchema } from "../schema/json-schema.js";
import type { ToolsInput } from "../tools/to-tools.js";
import { ToolRegistry } from "../tools/tool-registry.js";
import {
  authoringSystemPrompt,
  correctionMessage,
  echoedAnswer,
  objectiveMessage,
} from "./authoring-prompt.js";
import { checkAuthoredPlan, type AuthoredToolCall } from "./authored-plan-policy.js";
import { DEFAULT_AUTHORED_CONFIDENCE_FLOOR } from "./model-write-policy.js";
import { DEFAULT_MAX_ANSWER_CHARS, readModelAnswer } from "./read-model-answer.js";
import { toolCatalogue } from "./tool-catalogue.js";
import { toolNodeResponseSchema } from "./tool-node-schema.js";

/** Options of {@link authorPlan}. */
export interface AuthorPlanOptions {
  /** What the plan must achieve, in the user's words. */
  objective: string;
  /** The tools there are (a registry, a list, or a record by name). */
  tools: ToolRegistry | ToolsInput;
  /** The model that writes the plan: an AI SDK model instance (provider specification v4 or v3). */
  model: LanguageModelV4 | LanguageModelV3;
  /**
   * The names of the tools the plan may use — the security boundary: the model sees only these, and the plan
   * is validated against a registry that holds only these, so a plan naming any other tool is invalid.
   * Default: every tool in `tools`.
   */
  allowedTools?: readonly string[];
  /** The inputs the plan takes (a JSON Schema object); the plan's `inputs` field is set to it. Default: none. */
  inputs?: JsonSchema;
  /**
   * The node types the plan may use (the root entry's `createHost` gives the built-in ones). Default: tool
   * nodes only.
   */
  nodeTypes?: NodeTypeTable;
  /**
   * The host the plan is validated with (delegates and agents for delegate and agent nodes, as `createHost`
   * gives it); its `tools` are replaced by the allowed ones. Default: tools only.
   */
  host?: ExecutionHost;
  /**
   * The host's confidence floor (0–1): a gate's bar in the plan (a delegate node's confidence threshold) may not be
   * below it, and one the model left out is set to it. Default 0.8 (`DEFAULT_AUTHORED_CONFIDENCE_FLOOR`).
   */
  confidenceFloor?: number;
  /** Longest answer read, in characters; a longer one is an issue. Default 200,000. */
  maxAnswerChars?: number;
  /** Aborts the model's request. */
  signal?: AbortSignal;
}

/** What authoring spent on the model, over both rounds. */
export interface AuthoringUsage {
  /** Requests made: 1, or 2 with the correction round. */
  calls: number;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

/** What {@link authorPlan} returns: a validated plan, or the issues that remained after the correction round. */
export type AuthorPlanResult =
  | {
      ok: true;
      /** The plan as JSON, as the model wrote it (with `inputs` and a missing `objective` filled in). */
      plan: Record<string, unknown>;
      /** Validation's warnings on it. */
      warnings: PlanIssue[];
      /**
       * Its nodes that call tools with side effects (not `delegateSafe`) as written: when there are any, the plan
       * runs only once a person approves it (shown with `renderApprovalRequest`). Empty: nothing to approve.
       */
      needsApproval: AuthoredToolCall[];
      usage: AuthoringUsage;
    }
  | { ok: false; issues: PlanIssue[]; usage: AuthoringUsage };

/**
 * Asks a model to turn an objective into an execution plan, and validates what it answers. The model sees the
 * allowed tools' catalogue (name, description, argument schema, side effects) and deputy's plan JSON Schema,
 * and answers through structured output (a JSON-schema response format, where the provider supports one). An
 * invalid plan gets **one** correction round, with the issues sent back as text; what is still invalid then
 * comes back as issues. A model-written plan is held to the rules its node types declare for model-written
 * content, as a repair's delta is: it may not set a field a model never sets (a delegate's side-effect key), put a gate's
 * bar below the host's `confidenceFloor`, use a placeholder deputy does not know or name another node's artifact
 * as plain text — each its own issue code. Its nodes that call tools with side effects are listed in
 * `needsApproval`: the caller shows them to a person before running it. The answer is untrusted input: one that is not JSON, has the wrong shape, is huge or
 * nested deep, or names a tool outside the allowlist is a list of issues, never an exception. Only a model that
 * cannot be asked throws ({@link PlanAuthoringError} `MODEL_FAILED`).
 *
 * @example
 * const result = await authorPlan({
 *   objective: "Fetch the open alerts and file one ticket summarising them",
 *   tools: [fetchAlerts, fileTicket, deleteEverything],
 *   allowedTools: ["fetch_alerts", "file_ticket"],
 *   model: createOpenAICompatible({ name: "local", baseURL: "http://127.0.0.1:8080/v1" }).chatModel("default"),
 * });
 * if (result.ok) await runPlan(result.plan, { tools: [fetchAlerts, fileTicket] });
 * else for (const issue of result.issues) console.error(issue.code, issue.message);
 */
export async function authorPlan(options: AuthorPlanOptions): Promise<AuthorPlanResult> {
  if (typeof options?.objective !== "string" || options.objective.trim() === "")
    throw new InvalidOptionError("objective", "a non-empty string", options?.objective);
  const allowed = allowedRegistry(options.tools, options.allowedTools);
  const floor = options.confidenceFloor ?? DEFAULT_AUTHORED_CONFIDENCE_FLOOR;
  if (typeof floor !== "number" || !(floor >= 0 && floor <= 1))
    throw new InvalidOptionError("confidenceFloor", "a number from 0 to 1", floor);
  const nodeTypes = options.nodeTypes ?? new NodeTypeTable([toolNodeType]);
  // Without a host, only the engine's part: a node type that reads more (delegates…) is then a
  // `missing_capability` issue of validation, not a TypeError.
  const base = options.host ?? ({ agents: agentResolver(), budget: undefined } as Partial<ExecutionHost>);
  const host = { ...base, tools: allowed } as ExecutionHost;
  const maxChars = options.maxAnswerChars ?? DEFAULT_MAX_ANSWER_CHARS;
  const schema = planJsonSchema(nodeTypes);
  const system = authoringSystemPrompt(toolCatalogue(allowed), schema, { nodeTypes, floor });
  const messages: ModelMessage[] = [
    { role: "user", content: objectiveMessage(options.objective, options.inputs) },
  ];
  const usage: AuthoringUsage = { calls: 0, inputTokens: 0, outputTokens: 0, totalTokens: 0 };
  // The model decodes under the schema narrowed to the allowed tools (see toolNodeResponseSchema); the prompt
  // shows the plan schema as validation reads it.
  const format = toolNodeResponseSchema(schema, allowed);
  const ask = () => askModel(options.model, system, messages, format, usage, options.signal);
  const check = (text: string) => checkAnswer(text, maxChars, options, { host, nodeTypes, floor });

  const first = await ask();
  const round1 = check(first);
  if (round1.ok) return { ...round1, usage };
  messages.push(
    { role: "assistant", content: echoedAnswer(first) },
    { role: "user", content: correctionMessage(round1.issues) },
  );
  const round2 = check(await ask());
  return round2.ok ? { ...round2, usage } : { ...round2, usage };
}

/** A registry of the allowed tools only; an allowed name that is no tool is the caller's mistake. */
function allowedRegistry(
  tools: ToolRegistry | ToolsInput,
  names: readonly string[] | undefined,
): ToolRegistry {
  const all = tools instanceof ToolRegistry ? tools : new ToolRegistry(tools);
  if (names === undefined) return all;
  if (!Array.isArray(names) || names.some((n) => typeof n !== "string"))
    throw new InvalidOptionError("allowedTools", "a list of tool names", names);
  const unknown = names.filter((n) => !all.has(n));
  if (unknown.length > 0)
    throw new InvalidOptionError(
      "allowedTools",
      `names of tools in \`tools\` (${all.names().join(", ")})`,
      unknown.join(", "),
    );
  return new ToolRegistry(all.list().filter((t) => names.includes(t.name)));
}

type Checked =
  | { ok: true; plan: Record<string, unknown>; warnings: PlanIssue[]; needsApproval: AuthoredToolCall[] }
  | { ok: false; issues: PlanIssue[] };

/** Reads one answer, validates it as a plan against the allowed tools and holds it to the authoring policy. */
function checkAnswer(
  text: string,
  maxChars: number,
  options: AuthorPlanOptions,
  { host, nodeTypes, floor }: { host: ExecutionHost; nodeTypes: NodeTypeTable; floor: number },
): Checked {
  const read = readModelAnswer(text, maxChars);
  if (!read.ok) return { ok: false, issues: [read.issue] };
  let candidate = read.value;
  if (isObject(candidate)) {
    // The caller declares the inputs, not the model; the objective is the caller's too when the model left it out.
    candidate = {
      ...candidate,
      ...(candidate.objective === undefined ? { objective: options.objective } : {}),
      ...(options.inputs ? { inputs: options.inputs } : {}),
    };
  }
  const report = validatePlan(candidate, { host, nodeTypes });
  if (!isObject(candidate)) return { ok: false, issues: report.issues };
  const policy = checkAuthoredPlan(candidate, report, { nodeTypes, tools: host.tools, floor });
  const promoted = new Set(policy.issues.map((i) => i.code));
  const warnings = report.issues.filter((i) => !(i.severity === "warning" && promoted.has(i.code)));
  if (!report.ok || policy.issues.length > 0)
    return { ok: false, issues: [...warnings.filter((i) => i.severity === "error"), ...policy.issues] };
  return { ok: true, plan: policy.plan, warnings, needsApproval: policy.needsApproval };
}

/**
 * One request through the AI SDK's `generateText` with a JSON-schema response format. The output is taken as
 * the raw text (deputy reads and validates it itself, so a bad answer becomes issues rather than the SDK's
 * exception). `ai` is loaded here, on first use: it costs ~0.3–0.5 s to import and most commands never author.
 * Shared by authoring and repair (`formatName` names the response format: `execution_plan`, `plan_delta`;
 * `maxOutputTokens` caps the answer, so a model that runs away under a grammar ends instead of filling its context).
 */
export async function askModel(
  model: LanguageModelV4 | LanguageModelV3,
  system: string,
  messages: ModelMessage[],
  schema: JsonSchema,
  usage: AuthoringUsage,
  signal: AbortSignal | undefined,
  formatName = "execution_plan",
  maxOutputTokens?: number,
): Promise<string> {
  const { generateText } = await import("ai");
  usage.calls += 1;
  try {
    const result = await generateText({
      model,
      system,
      messages,
      output: rawJsonOutput(schema, formatName),
      ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}),
      ...(signal ? { abortSignal: signal } : {}),
    });
    usage.inputTokens += result.totalUsage.inputTokens ?? 0;
    usage.outputTokens += result.totalUsage.outputTokens ?? 0;
    usage.totalTokens += result.totalUsage.totalTokens ?? 0;
    try {
      return result.output as string;
    } catch {
      return result.text; // no output at all (say, cut off by a length limit before any text)
    }
  } catch (cause) {
    throw new PlanAuthoringError(
      "MODEL_FAILED",
      `The model could not be asked for a plan: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
  }
}

/** Structured output whose result is the answer's text as it came: the schema goes to the provider only. */
function rawJsonOutput(schema: JsonSchema, name: string): Output.Output<string, string, never> {
  return {
    name: "object",
    responseFormat: Promise.resolve({ type: "json", schema, name }),
    parseCompleteOutput: async ({ text }: { text: string }) => text,
    parsePartialOutput: async ({ text }: { text: string }) => ({ partial: text }),
    createElementStreamTransform: () => undefined,
  };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
