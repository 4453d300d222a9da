import { delegateHost } from "./host-capabilities.js";
import type { SerializedError } from "../errors/deputy-error.js";
import { compileGuard, type CelGuard } from "../runtime/cel-guard.js";
import { approvalNeeded } from "../runtime/approval-step.js";
import { dispatchTool } from "../runtime/dispatch-tool.js";
import type { UnitOutcome, WorkUnit } from "../plan/node-executor.js";
import { renderString, renderValue } from "../runtime/template.js";
import type { JsonSchema } from "../schema/json-schema.js";
import type { Tool } from "../tools/define-tool.js";
import { CHECKS, type GateInput, type GateResult } from "./accept-gate.js";
import type { DelegateNode } from "./delegate-node.js";
import { buildProposalSchema } from "./proposal-schema.js";
import type { Proposal, ToolCallDelegate, ToolSpec } from "./protocol.js";
import { judgeProposal, proposeAndJudge } from "./propose-and-judge.js";
import { hopBefore } from "./proposal-trust.js";
import type { DelegateTask, RunCoordinates } from "../records/delegate-task.js";
import type { CallOrDecline, HopSummary, ProposalSource } from "../records/hop.js";
import type { Spend } from "../records/spend.js";
import { Redactor } from "../traces/redact.js";

// The pieces every path of a delegate unit shares (a backend's proposal, an escalate_to agent's answer, a
// person's resolution): the prepared input, the traced hop, the dispatch and the outcomes.

export type { HopSummary } from "../records/hop.js";

// Escalations are checkpointed and shown in manifests: keep secrets and sensitive arguments out of them.
export const argumentRedactor = new Redactor({ secretValues: false });

/**
 * One delegate unit (not exported from the package's entries): the task rendered once from the unit's scope, and
 * the hops and spend it owns. Every proposal, whatever its source, is judged by {@link DelegateUnit.judge} or
 * {@link DelegateUnit.propose}; nothing outside changes its state.
 */
export class DelegateUnit {
  /** The instruction and facts rendered with the unit's scope and the candidate tools: built once, traced as is. */
  readonly task: Readonly<DelegateTask>;
  readonly schema: JsonSchema;
  readonly #guard: CelGuard | undefined;
  readonly #hops: HopSummary[] = [];
  /** The hop before in the backend chain, for a trust model's `agreesWithPrevious` (none before the first). */
  #levelBefore: { proposal: CallOrDecline | undefined } | undefined;
  #spend: Spend | undefined;

  /** Renders the instruction and facts with the unit's scope and builds the tool specs, proposal schema and guard. */
  constructor(
    readonly node: DelegateNode,
    readonly unit: WorkUnit,
  ) {
    const rendered = renderString(node.instruction, unit.scope);
    const instruction = typeof rendered === "string" ? rendered : JSON.stringify(rendered);
    const facts = renderValue(node.facts, unit.scope) as Record<string, unknown>;
    const tools = node.tools
      .map((name) => unit.host.tools.find(name))
      .filter((t): t is Tool => t !== undefined)
      .map(toolSpec);
    this.task = { instruction, facts, tools };
    this.schema = buildProposalSchema(tools);
    this.#guard = node.accept_when ? compileGuard(node.accept_when) : undefined;
  }

  /** The hops so far, as the manifest shows them. */
  get hops(): readonly HopSummary[] {
    return this.#hops;
  }

  /** Asks a backend for one call with `proposeAndJudge` (gate, event, trace) and keeps the hop. */
  async propose(backend: ToolCallDelegate): Promise<{ gate: GateResult; proposal: Proposal | undefined }> {
    const levelBefore = this.#levelBefore;
    const { proposal, gate, latencyMs } = await proposeAndJudge(backend, {
      request: { ...this.task, schema: this.schema, signal: this.unit.signal, context: this.#where() },
      gate: {
        ...this.#gateInput("delegate"),
        ...(backend.trust
          ? { trust: { model: backend.trust, ...(levelBefore ? { levelBefore } : {}) } }
          : {}),
      },
      traceSink: delegateHost(this.unit.host).traceSink,
    });
    this.#levelBefore = hopBefore(proposal, gate.verdict);
    this.#keep("delegate", backend.name, proposal, gate, latencyMs);
    return { gate, proposal };
  }

  /**
   * Judges a proposal in hand (an `escalate_to` agent's answer, a person's call, a repair's call) with
   * `judgeProposal` — the gate with the source's {@link CHECKS}, the `deputy:proposal` event and the trace — and
   * keeps the hop, and what making the proposal spent (`extra.spend`: an `escalate_to` agent's tokens).
   */
  async judge(
    source: ProposalSource,
    backend: string,
    proposal: Proposal | undefined,
    latencyMs: number,
    extra: { backendError?: unknown; unparsedArguments?: string; spend?: Spend } = {},
  ): Promise<GateResult> {
    const { backendError, unparsedArguments, spend } = extra;
    if (spend) this.#spend = spend;
    const result = await judgeProposal({
      proposal,
      ...(backendError === undefined ? {} : { backendError }),
      gate: {
        ...this.#gateInput(source),
        ...(unparsedArguments === undefined ? {} : { unparsedArguments }),
      },
      request: { ...this.task, context: this.#where() },
      backend,
      source,
      latencyMs,
      traceSink: delegateHost(this.unit.host).traceSink,
    });
    this.#keep(source, backend, proposal, result, latencyMs);
    return result;
  }

  /** What the manifest shows of the unit (its `details`). */
  summary(gate: GateResult, proposal: Proposal | undefined): Record<string, unknown> {
    return {
      verdict: gate.verdict,
      ...(gate.verdict === "accepted" ? {} : { reason: gate.reason }),
      ...(proposal?.name ? { tool: proposal.name } : {}),
      confidence: proposal?.confidence ?? null,
      backend: proposal?.backend ?? this.#hops.at(-1)?.backend ?? null,
      // A copy: the outcome's details leave the unit, its hops do not.
      hops: [...this.#hops],
      ...(this.#spend ? { spend: this.#spend } : {}),
    };
  }

  /**
   * Runs an accepted call with the node's retry and timeout — unless its tool requires approval for it
   * (`needsApproval`): then the unit pauses for a person's yes or no, on top of the side-effect double key. A
   * person's own call (`source: "person"`, a resolution's call or an approved call) is the approval.
   */
  async dispatch(
    gate: GateResult,
    proposal: Proposal,
    source: ProposalSource,
    approved: Record<string, unknown> = {},
  ): Promise<UnitOutcome> {
    const { node, unit } = this;
    if (source !== "person") {
      const approval = await approvalNeeded(gate.tool!, gate.call!.arguments, unit);
      if (approval) {
        const paused = this.escalated(gate, proposal, approval.reason);
        return paused.status === "escalated"
          ? { ...paused, escalation: { ...paused.escalation, ...approval } }
          : paused;
      }
    }
    const result = await dispatchTool(gate.tool!, gate.call!.arguments, unit, node.retry, node.timeout);
    const details = {
      ...this.summary(gate, proposal),
      ...(source === "delegate" ? {} : { resolvedBy: source }),
      ...approved,
      attempts: result.attempts,
    };
    return result.ok
      ? { status: "ok", value: result.value, details }
      : { status: "error", error: result.error, details };
  }

  /** An error outcome that still carries the hops so far. */
  failure(error: SerializedError): UnitOutcome {
    return { status: "error", error, details: { hops: [...this.#hops] } };
  }

  /** An escalated outcome: the verdict, the reason and the proposal (secrets and sensitive arguments redacted). */
  escalated(gate: GateResult, proposal: Proposal | undefined, reason: string): UnitOutcome {
    const { node, task } = this;
    const sensitive = task.tools.find((s) => s.name === proposal?.name)?.sensitive ?? [];
    return {
      status: "escalated",
      escalation: {
        verdict: gate.verdict,
        reason,
        // What the person deciding and the learner need, as this unit rendered it: the record describes itself.
        instruction: task.instruction,
        facts: task.facts,
        tools: task.tools.map(({ name, description, parameters, sensitive }) => ({
          name,
          description,
          parameters,
          ...(sensitive ? { sensitive } : {}),
        })),
        ...(node.min_confidence === undefined ? {} : { minConfidence: node.min_confidence }),
        allowSideEffects: node.allow_side_effects,
        ...(proposal
          ? {
              proposal: {
                name: proposal.name,
                arguments: argumentRedactor.redactValue(proposal.arguments ?? {}, sensitive),
                confidence: proposal.confidence,
                backend: proposal.backend,
              },
            }
          : {}),
      },
      details: this.summary(gate, proposal),
    };
  }

  /** The unit a proposal is for, as a backend's `context` and a trace name it. */
  #where(): RunCoordinates {
    const { unit } = this;
    return {
      runId: unit.runId,
      nodeId: unit.nodeId,
      ...(unit.itemIndex === undefined ? {} : { item: unit.itemIndex }),
    };
  }

  /** The gate's input for this unit and a source, less the proposal. */
  #gateInput(source: ProposalSource): Omit<GateInput, "proposal"> {
    const { node, unit } = this;
    return {
      candidates: node.tools,
      findTool: (name) => unit.host.tools.find(name),
      allowSideEffects: {
        node: node.allow_side_effects,
        host: delegateHost(unit.host).allowDelegateSideEffects,
      },
      ...(node.min_confidence === undefined ? {} : { minConfidence: node.min_confidence }),
      ...(this.#guard ? { guard: this.#guard } : {}),
      guardContext: {
        facts: this.task.facts,
        artifacts: unit.scope.artifacts,
        status: unit.statuses,
        errors: unit.errors,
      },
      checks: CHECKS[source],
    };
  }

  #keep(
    source: ProposalSource,
    backend: string,
    proposal: Proposal | undefined,
    gate: GateResult,
    latencyMs: number,
  ) {
    this.#hops.push({
      backend,
      verdict: gate.verdict,
      source,
      confidence: proposal?.confidence ?? null,
      latencyMs,
      ...(gate.trust ? { trust: gate.trust } : {}),
    });
  }
}

/** A registered tool as a delegate sees it (its `delegateDescription` when it has one). */
export function toolSpec(tool: Tool): ToolSpec {
  return {
    name: tool.name,
    description: tool.delegateDescription ?? tool.description,
    parameters: tool.parameters,
    ...(tool.sensitive.length > 0 ? { sensitive: tool.sensitive } : {}),
  };
}
