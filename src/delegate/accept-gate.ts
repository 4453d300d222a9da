import type { SerializedError } from "../errors/deputy-error.js";
import { serializeError } from "../errors/deputy-error.js";
import type { CelGuard } from "../runtime/cel-guard.js";
import { validateValue } from "../schema/validator.js";
import type { Tool } from "../tools/define-tool.js";
import type { CallOrDecline, ProposalSource, ToolCall, TrustReading } from "../records/hop.js";
import type { Judgement } from "../records/verdict.js";
import type { Proposal, ProposalTrust } from "./protocol.js";
import { trustSignals } from "./proposal-trust.js";
import { strictSchema } from "./strict-schema.js";

export { VERDICTS, type Verdict } from "../records/verdict.js";

/** What the gate needs to judge one proposal. Pure data plus a guard and a tool lookup. */
export interface GateInput {
  /** The proposal, or `undefined` when the backend failed (`backendError` says why) or was not called. */
  proposal: Proposal | undefined;
  /** Set when the backend threw, timed out or answered something unparseable. */
  backendError?: unknown;
  /** `inputChars(instruction, facts)` and the backend's limit; checked first. Omit both to skip the check. */
  inputChars?: number;
  maxInputChars?: number;
  /** The node's `tools`. */
  candidates: readonly string[];
  /** The registered tool of a name, or `undefined`. */
  findTool: (name: string) => Tool | undefined;
  /** The node half and the host half of the side-effect double key. */
  allowSideEffects: { node: boolean; host: boolean };
  /** The node's `min_confidence`. */
  minConfidence?: number;
  /**
   * The backend's trust model, and the proposal of the hop before in the node's chain (`levelBefore`; absent at
   * the first hop): when set, the confidence check holds the model's probability, not the raw confidence, to the
   * model's threshold and to `minConfidence`.
   */
  trust?: { model: ProposalTrust; levelBefore?: { proposal: CallOrDecline | undefined } };
  /** The node's compiled `accept_when`. */
  guard?: CelGuard;
  /** What `accept_when` sees besides `ctx.proposal`. */
  guardContext?: { facts?: unknown; artifacts?: unknown; status?: unknown; errors?: unknown };
  /**
   * The proposal's arguments as the model wrote them, when they are not a JSON object (a model answering outside a
   * grammar): judged `invalid_args` once the tool is known.
   */
  unparsedArguments?: string;
  /**
   * Which checks apply besides the tool, schema and side-effect ones: the proposer's row of {@link CHECKS}.
   * Default: all of them (`CHECKS.delegate`).
   */
  checks?: CheckPolicy;
}

/**
 * Which of the gate's checks a proposal must pass beyond those every proposal passes (the tool, its schema and
 * the side-effect double key): `confidence` — `unscored` / `low_confidence` against the node's `min_confidence`;
 * `guard` — the node's `accept_when`.
 */
export interface CheckPolicy {
  readonly confidence: boolean;
  readonly guard: boolean;
}

/**
 * The check policy of each source of a proposal — policy as data. A backend's proposal passes every check; an
 * `escalate_to` agent's answer and a repair's call (a plan repair's model, not a scored one) no confidence
 * checks, since they carry no calibrated score, but the node's `accept_when`; a person's call neither (a person
 * decides in the node's place). Every source gets the tool, schema and side-effect checks.
 */
export const CHECKS = {
  delegate: { confidence: true, guard: true },
  agent: { confidence: false, guard: true },
  person: { confidence: false, guard: false },
  repair: { confidence: false, guard: true },
} as const satisfies Record<ProposalSource, CheckPolicy>;

/** The gate's answer. `call` and `tool` are set only when `verdict` is `accepted`. */
export interface GateResult extends Judgement {
  call?: ToolCall;
  tool?: Tool;
  /** Schema issues (`invalid_args`). */
  issues?: string[];
  /** The backend's or the guard's error (`backend_error`, `guard_false` from an evaluation error). */
  error?: SerializedError;
  /** What the trust model read, when the confidence check used one (accepted or not). */
  trust?: TrustReading;
}

/**
 * The accept gate: decides whether a delegate's proposal may run, checking in exactly this order —
 * `input_too_long`, `backend_error`, `declined`, `unknown_tool`, `invalid_args` (the tool's schema with unknown
 * keys rejected), `side_effect_denied` (double key), `unscored` / `low_confidence` (a confidence equal to the
 * minimum passes; with a trust model, its probability against its threshold and the minimum), `guard_false` (an evaluation error counts as false), then `accepted`. Pure: it calls nothing
 * but the guard.
 */
export function acceptGate(input: GateInput): GateResult {
  const { proposal } = input;
  if (
    input.inputChars !== undefined &&
    input.maxInputChars !== undefined &&
    input.inputChars > input.maxInputChars
  ) {
    return {
      verdict: "input_too_long",
      reason: `instruction and facts are ${input.inputChars} characters, more than the backend's limit of ${input.maxInputChars}`,
    };
  }
  if (input.backendError !== undefined || proposal === undefined) {
    const error = input.backendError === undefined ? undefined : serializeError(input.backendError);
    return {
      verdict: "backend_error",
      reason: error ? `the backend failed: ${error.message}` : "the backend gave no proposal",
      ...(error ? { error } : {}),
    };
  }
  const shape = shapeProblem(proposal);
  if (shape)
    return { verdict: "backend_error", reason: `the backend answered an unusable proposal: ${shape}` };
  if (proposal.name === null) return { verdict: "declined", reason: "the delegate declined to call a tool" };

  const name = proposal.name;
  const tool = input.candidates.includes(name) ? input.findTool(name) : undefined;
  if (!tool) {
    const why = input.candidates.includes(name)
      ? "is not registered"
      : `is not one of ${input.candidates.join(", ")}`;
    return { verdict: "unknown_tool", reason: `tool "${name}" ${why}` };
  }
  if (input.unparsedArguments !== undefined) {
    const issue = `(root): the arguments are not a JSON object: ${input.unparsedArguments.slice(0, 200)}`;
    return {
      verdict: "invalid_args",
      reason: `arguments for "${name}" do not fit its schema: ${issue}`,
      issues: [issue],
    };
  }
  const args = proposal.arguments ?? {};
  const checked = validateValue(strictSchema(tool.parameters), args);
  if (!checked.ok) {
    return {
      verdict: "invalid_args",
      reason: `arguments for "${name}" do not fit its schema: ${checked.issues.join("; ")}`,
      issues: checked.issues,
    };
  }
  if (!tool.delegateSafe && !(input.allowSideEffects.node && input.allowSideEffects.host)) {
    const missing = [
      input.allowSideEffects.node ? undefined : "the node's allow_side_effects",
      input.allowSideEffects.host ? undefined : "the host's allowDelegateSideEffects",
    ].filter(Boolean);
    return {
      verdict: "side_effect_denied",
      reason: `"${name}" is not delegateSafe and ${missing.join(" and ")} ${missing.length > 1 ? "are" : "is"} not set`,
    };
  }
  const checks = input.checks ?? CHECKS.delegate;
  let trust: TrustReading | undefined;
  if (checks.confidence && input.trust) {
    const judged = trustCheck(proposal, input.trust, input.minConfidence);
    if ("verdict" in judged) return judged;
    trust = judged;
  } else if (checks.confidence && input.minConfidence !== undefined) {
    if (proposal.confidence === null || proposal.confidence === undefined) {
      return {
        verdict: "unscored",
        reason: `min_confidence is ${input.minConfidence} but the backend gave no confidence`,
      };
    }
    if (proposal.confidence < input.minConfidence) {
      return {
        verdict: "low_confidence",
        reason: `confidence ${round(proposal.confidence)} is below min_confidence ${input.minConfidence}`,
      };
    }
  }
  if (input.guard && checks.guard) {
    const ctx = {
      proposal: { name, arguments: args, confidence: proposal.confidence ?? null },
      facts: input.guardContext?.facts ?? {},
      artifacts: input.guardContext?.artifacts ?? {},
      status: input.guardContext?.status ?? {},
      errors: input.guardContext?.errors ?? {},
    };
    try {
      if (!input.guard(ctx)) return { verdict: "guard_false", reason: "accept_when is false" };
    } catch (cause) {
      const error = serializeError(cause);
      return {
        verdict: "guard_false",
        reason: `accept_when could not be evaluated: ${error.message}`,
        error,
      };
    }
  }
  return {
    verdict: "accepted",
    reason: `"${name}" accepted`,
    call: { name, arguments: args },
    tool,
    ...(trust ? { trust } : {}),
  };
}

/**
 * The confidence check by a trust model: the probability must reach the model's threshold and the node's
 * `min_confidence` (a floor the model cannot lower); the reading, or the verdict that stops the proposal.
 */
function trustCheck(
  proposal: Proposal,
  trust: NonNullable<GateInput["trust"]>,
  minConfidence: number | undefined,
): TrustReading | GateResult {
  let probability: number | null;
  try {
    probability = trust.model.probability(trustSignals(proposal, trust.levelBefore));
  } catch {
    probability = null;
  }
  // A probability or threshold out of 0–1 (a trust model of someone's own making) scores nothing.
  const threshold = trust.model.threshold;
  if (!(probability !== null && probability >= 0 && probability <= 1 && threshold >= 0 && threshold <= 1))
    probability = null;
  const reading: TrustReading = {
    confidence: proposal.confidence ?? null,
    probability,
    threshold,
    ...(minConfidence === undefined ? {} : { minConfidence }),
  };
  const raw = reading.confidence === null ? "no confidence" : `confidence ${round(reading.confidence)}`;
  if (probability === null)
    return {
      verdict: "unscored",
      reason: `the trust model cannot score this proposal (${raw}; a signal it reads is missing or out of range)`,
      trust: reading,
    };
  const floor =
    probability < reading.threshold
      ? `the trust model's threshold ${round(reading.threshold)}`
      : minConfidence !== undefined && probability < minConfidence
        ? `min_confidence ${minConfidence}`
        : undefined;
  if (floor)
    return {
      verdict: "low_confidence",
      reason: `trusted probability ${round(probability)} (${raw}) is below ${floor}`,
      trust: reading,
    };
  return reading;
}

/** Why a proposal object is not usable (a backend bug or a model's unparseable answer), or `undefined`. */
function shapeProblem(proposal: Proposal): string | undefined {
  if (typeof proposal !== "object" || proposal === null) return "not an object";
  if (proposal.name !== null && typeof proposal.name !== "string") return "name is neither a string nor null";
  const args = proposal.arguments as unknown;
  if (args !== undefined && (typeof args !== "object" || args === null || Array.isArray(args))) {
    return "arguments is not an object";
  }
  const c = proposal.confidence as unknown;
  if (c !== null && c !== undefined && (typeof c !== "number" || !Number.isFinite(c) || c < 0 || c > 1)) {
    return "confidence is not a number between 0 and 1";
  }
  return undefined;
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}
