import type { LanguageModelV3, LanguageModelV4 } from "@ai-sdk/provider";
import type { ModelMessage } from "ai";
import { InvalidOptionError } from "../errors/invalid-option-error.js";
import { PlanAuthoringError } from "../errors/plan-authoring-error.js";
import type { PlanIssue } from "../errors/plan-validation-error.js";
import { RepairError } from "../errors/repair-error.js";
import { agentResolver } from "../plan/host-capabilities.js";
import type { ExecutionHost } from "../plan/node-executor.js";
import { NodeTypeTable } from "../plan/node-type-table.js";
import { planJsonSchema } from "../plan/plan-json-schema.js";
import { toolNodeResponseSchema } from "./tool-node-schema.js";
import { toolNodeType } from "../plan/tool-node-type.js";
import { systemClock } from "../runtime/clock.js";
import { redactRecord } from "../runtime/redact-value.js";
import type { LeaseOptions } from "../store/run-lease.js";
import type { RepairRecord, RunRecord } from "../store/run-state.js";
import type { RunStore, RunSummary } from "../store/run-store.js";
import type { ToolsInput } from "../tools/to-tools.js";
import { ToolRegistry } from "../tools/tool-registry.js";
import { askModel, type AuthoringUsage } from "./author-plan.js";
import { echoedAnswer } from "./authoring-prompt.js";
import { DEFAULT_MAX_ANSWER_CHARS, readModelAnswer } from "./read-model-answer.js";
import { holdRun, notFound } from "./repair-decisions.js";
import { isRepairable } from "./model-write-policy.js";
import { checkRepairDelta, type CheckedDelta } from "./repair-delta.js";
import {
  deltaCorrectionMessage,
  deltaJsonSchema,
  failureMessage,
  repairSystemPrompt,
  type EligibleNode,
} from "./repair-prompt.js";
import { toolCatalogue } from "./tool-catalogue.js";

/** Default of {@link RepairRunOptions.maxRounds}: repairs per lineage (a run and the children made from it). */
export const DEFAULT_MAX_REPAIR_ROUNDS = 2;

/** Default of {@link RepairRunOptions.maxOutputTokens}. */
const DEFAULT_MAX_DELTA_TOKENS = 4_096;

/** Options of {@link repairRun}. */
export interface RepairRunOptions {
  /** The model that writes the delta (an AI SDK model instance). Without one the repair is refused (`NO_MODEL`). */
  model?: LanguageModelV4 | LanguageModelV3 | undefined;
  /** How the model is recorded with the repair (a spec without credentials). Default: its provider and id. */
  modelLabel?: string;
  /** The tools there are (a registry, a list, or a record by name). */
  tools: ToolRegistry | ToolsInput;
  /**
   * The tools a replaced node may name — the boundary. Default: an authored run's recorded allowlist
   * (`options.authored.allowedTools`), else every tool in `tools`.
   */
  allowedTools?: readonly string[];
  /** Repairs allowed per lineage, set by the host (never by the plan). Default 2. */
  maxRounds?: number;
  /** The node types the plan uses (the root entry's `createHost` gives them). Default: tool nodes only. */
  nodeTypes?: NodeTypeTable;
  /** The host the patched plan is validated with (delegates for delegate nodes); its `tools` are replaced. */
  host?: ExecutionHost;
  /** Longest answer read, in characters. Default 200,000. */
  maxAnswerChars?: number;
  /**
   * Most tokens the model may answer with, per call. Default 4,096: a delta replaces a few nodes, and a small
   * model under a grammar can run on (an endless string) until its context is full — minutes on a CPU. A cut
   * answer is not JSON, an issue like any other.
   */
  maxOutputTokens?: number;
  /** How the run is held while the model is asked (the run's lease: a second repair is refused meanwhile). */
  lease?: Pick<LeaseOptions, "ttlMs" | "owner">;
  signal?: AbortSignal;
  /** @internal */
  _internal?: { now?: () => number };
}

/** What {@link repairRun} returns: a pending repair (a valid delta awaiting a decision), or the refused delta. */
export type RepairRunResult =
  | { ok: true; repair: RepairRecord; usage: AuthoringUsage }
  | { ok: false; repair: RepairRecord; issues: PlanIssue[]; usage: AuthoringUsage };

/**
 * Asks a model to repair a failed run with a **plan delta** that replaces failed nodes by id, checks it, and
 * keeps a valid one on the run as a pending repair (approve it with {@link approveRepair}; reject it with
 * {@link rejectRepair}). The run must be `failed` or `partial` with tool or delegate nodes that ended `error`
 * or `blocked`; the lineage must have rounds left; a model must be given; no other process may hold the run —
 * otherwise {@link RepairError} says why and nothing changes. The attempt is recorded before the model is
 * asked, so a crash or a bad answer still spends the round. The delta is untrusted: every forbidden change is
 * a coded issue, the patched plan must validate, and an invalid delta gets one correction round.
 *
 * @example
 * const result = await repairRun(store, runId, { model, tools: [fetchV1, fetchV2] });
 * if (result.ok) {
 *   console.log(renderRepairDiff(result.repair.diff ?? []));
 *   const { childRunId } = await approveRepair(store, runId);
 *   await resumeRun(childRunId, { store, tools: [fetchV1, fetchV2] });
 * }
 */
export async function repairRun(
  store: RunStore,
  runId: string,
  options: RepairRunOptions,
): Promise<RepairRunResult> {
  const maxRounds = options.maxRounds ?? DEFAULT_MAX_REPAIR_ROUNDS;
  if (!Number.isInteger(maxRounds) || maxRounds < 0)
    throw new InvalidOptionError("maxRounds", "a whole number ≥ 0", maxRounds);
  const now = () => new Date((options._internal?.now ?? systemClock)());
  const first = await loadOrFail(store, runId);
  // Before eligibility: which nodes a repair may replace is their node types' to say.
  const nodeTypes = options.nodeTypes ?? new NodeTypeTable([toolNodeType]);
  const refuse = async (summary: RunSummary) => {
    if (!options.model)
      throw new RepairError("NO_MODEL", `No model is configured to repair run ${runId}.`, { runId });
    const eligible = await repairable(store, summary, maxRounds, nodeTypes);
    return eligible;
  };
  await refuse(first);
  const held = await holdRun(store, runId, options.lease, options.signal);
  try {
    // Checked again now that the run is ours: another repair may have ended between the two reads.
    const summary = await loadOrFail(store, runId);
    const { eligible, round } = await refuse(summary);
    const allowed = allowedTools(summary.run, options);
    const host = {
      ...(options.host ?? ({ agents: agentResolver(), budget: undefined } as Partial<ExecutionHost>)),
      tools: allowed,
    } as ExecutionHost;
    const at = now().toISOString();
    let repair: RepairRecord = {
      id: `r${round}`,
      round,
      status: "asking",
      createdAt: at,
      updatedAt: at,
      model: options.modelLabel ?? modelLabel(options.model!),
      eligible: eligible.map((n) => n.id),
    };
    const save = async (patch: Partial<RepairRecord>) => {
      repair = { ...repair, ...patch, updatedAt: now().toISOString() };
      await held.store.write(runId, [{ kind: "repair", repair }]);
      return repair;
    };
    // Spent before the model is asked: a crash, a hang or a bad answer cannot buy another round.
    await save({});
    const usage: AuthoringUsage = { calls: 0, inputTokens: 0, outputTokens: 0, totalTokens: 0 };
    // Narrowed to the allowed tools, as for authoring: under the open `args` schema the real models wrote
    // argument values as objects (see toolNodeResponseSchema).
    const schema = deltaJsonSchema(
      toolNodeResponseSchema(planJsonSchema(nodeTypes), allowed, { requireDependsOn: false }),
    );
    const system = repairSystemPrompt(toolCatalogue(allowed), summary.run.plan, nodeTypes);
    const messages: ModelMessage[] = [{ role: "user", content: failureMessage(eligible) }];
    const maxChars = options.maxAnswerChars ?? DEFAULT_MAX_ANSWER_CHARS;
    const check = (text: string): CheckedDelta => {
      const read = readModelAnswer(text, maxChars);
      if (!read.ok) return { ok: false, issues: [read.issue] };
      return checkRepairDelta(read.value, {
        plan: summary.run.plan,
        eligible: eligible.map((n) => n.id),
        allowedTools: allowed.names(),
        host,
        nodeTypes,
        knownArtifacts: Object.keys(summary.artifacts),
      });
    };
    // `refused`: the first answer's issues, when this is the correction round — so that a correction that cannot
    // be asked still says what was wrong with the delta (and keeps it with the spent round).
    const ask = async (refused: readonly PlanIssue[] = []) => {
      try {
        return await askModel(
          options.model!,
          system,
          messages,
          schema,
          usage,
          options.signal,
          "plan_delta",
          options.maxOutputTokens ?? DEFAULT_MAX_DELTA_TOKENS,
        );
      } catch (error) {
        if (!PlanAuthoringError.isInstance(error)) throw error;
        const why = error.message.replace(/^The model could not be asked for a plan: /, "");
        await save({
          status: "failed",
          usage,
          issues: [
            ...refused,
            { code: "model_failed", message: `The model could not be asked for a plan delta: ${why}` },
          ],
        });
        const first = refused.find((i) => i.severity === "error") ?? refused[0];
        throw new PlanAuthoringError(
          "MODEL_FAILED",
          first
            ? `The model's delta was refused (${first.code}: ${first.message}${refused.length > 1 ? `; ${refused.length - 1} more` : ""}), and it could not be asked for the correction: ${why}`
            : `The model could not be asked for a plan delta: ${why}`,
          { cause: error },
        );
      }
    };
    const answer = await ask();
    let checked = check(answer);
    if (!checked.ok) {
      messages.push(
        { role: "assistant", content: echoedAnswer(answer) },
        { role: "user", content: deltaCorrectionMessage(checked.issues) },
      );
      checked = check(await ask(checked.issues));
    }
    if (!checked.ok) {
      const issues = checked.issues.filter((i) => i.severity === "error");
      return { ok: false, repair: await save({ status: "invalid", usage, issues }), issues, usage };
    }
    const saved = await save({
      status: "pending",
      usage,
      delta: checked.delta,
      plan: checked.plan,
      diff: checked.changes,
    });
    return { ok: true, repair: saved, usage };
  } finally {
    await held.release();
  }
}

/**
 * The refusals that depend on the run: its state, an earlier repair still pending or applied, nothing eligible,
 * rounds used up. Returns the eligible nodes (errors redacted like traces) and the round this repair would be.
 */
async function repairable(
  store: RunStore,
  summary: RunSummary,
  maxRounds: number,
  nodeTypes: NodeTypeTable,
): Promise<{ eligible: EligibleNode[]; round: number }> {
  const { run } = summary;
  const runId = run.runId;
  if (run.status !== "failed" && run.status !== "partial")
    throw new RepairError(
      "RUN_NOT_REPAIRABLE",
      `Run ${runId} is ${run.status}; only a failed or partial run can be repaired.`,
      { runId },
    );
  const repairs = run.repairs ?? [];
  const applied = repairs.find((r) => r.status === "approved" || r.status === "applied");
  if (applied)
    throw new RepairError(
      "ALREADY_REPAIRED",
      `Run ${runId} was already repaired (${applied.id}, child run ${applied.childRunId ?? "being made"}); repair the child run instead.`,
      { runId },
    );
  const pending = repairs.find((r) => r.status === "pending");
  if (pending)
    throw new RepairError(
      "REPAIR_PENDING",
      `Run ${runId} has a repair awaiting a decision (${pending.id}); approve or reject it first.`,
      { runId },
    );
  const eligible = eligibleNodes(summary, nodeTypes);
  if (eligible.length === 0)
    throw new RepairError(
      "NOTHING_ELIGIBLE",
      `Run ${runId} has no node a repair may replace that ended in error or blocked; nothing to repair.`,
      { runId },
    );
  const used = await roundsUsed(store, run);
  if (used >= maxRounds)
    throw new RepairError(
      "ROUNDS_USED_UP",
      `Run ${runId}'s lineage has used its ${maxRounds} repair round${maxRounds === 1 ? "" : "s"}.`,
      { runId },
    );
  return { eligible, round: used + 1 };
}

/** The nodes a repair may replace (by their types) that ended `error` or `blocked`, in plan order, errors redacted. */
function eligibleNodes(summary: RunSummary, nodeTypes: NodeTypeTable): EligibleNode[] {
  const nodes = (summary.run.plan as { nodes?: unknown }).nodes;
  if (!Array.isArray(nodes)) return [];
  const out: EligibleNode[] = [];
  for (const node of nodes as Record<string, unknown>[]) {
    if (typeof node?.id !== "string") continue;
    const record = Object.hasOwn(summary.nodes, node.id) ? summary.nodes[node.id] : undefined;
    if (!record || !isRepairable(nodeTypes, node)) continue;
    if (record.status !== "error" && record.status !== "blocked") continue;
    const error = record.error
      ? (redactRecord(record.error) as { code: string; message: string })
      : undefined;
    out.push({
      id: node.id,
      status: record.status,
      ...(error ? { error: { code: String(error.code), message: String(error.message) } } : {}),
    });
  }
  return out;
}

/** Repairs asked for the run and its ancestors: the lineage shares the host's rounds. */
async function roundsUsed(store: RunStore, run: RunRecord): Promise<number> {
  let used = 0;
  const seen = new Set<string>();
  for (let at: RunRecord | undefined = run; at && !seen.has(at.runId);) {
    seen.add(at.runId);
    used += at.repairs?.length ?? 0;
    at = at.parentRunId ? (await store.loadSummary(at.parentRunId))?.run : undefined;
  }
  return used;
}

function allowedTools(run: RunRecord, options: RepairRunOptions): ToolRegistry {
  const all = options.tools instanceof ToolRegistry ? options.tools : new ToolRegistry(options.tools);
  const names = options.allowedTools ?? recordedAllowlist(run);
  if (names === undefined) return all;
  if (!Array.isArray(names) || names.some((n) => typeof n !== "string"))
    throw new InvalidOptionError("allowedTools", "a list of tool names", names);
  // A recorded name the tools given lack is simply not available; the caller's own list must exist.
  if (options.allowedTools) {
    const unknown = names.filter((n) => !all.has(n));
    if (unknown.length)
      throw new InvalidOptionError(
        "allowedTools",
        `names of the tools given (${all.names().join(", ")})`,
        unknown,
      );
  }
  return new ToolRegistry(all.list().filter((t) => names.includes(t.name)));
}

function recordedAllowlist(run: RunRecord): readonly string[] | undefined {
  return run.options.authored?.allowedTools;
}

async function loadOrFail(store: RunStore, runId: string): Promise<RunSummary> {
  return (await store.loadSummary(runId)) ?? notFound(runId);
}

function modelLabel(model: LanguageModelV4 | LanguageModelV3): string {
  return `${model.provider}:${model.modelId}`;
}
