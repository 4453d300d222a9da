import { wilsonInterval } from "../confidence/score-metrics.js";
import { acceptGate } from "../delegate/accept-gate.js";
import { hopBefore, trustSignals } from "../delegate/proposal-trust.js";
import type { Proposal, ToolCallDelegate, TrustSignals } from "../delegate/protocol.js";
import { DelegateBackendError } from "../errors/delegate-backend-error.js";
import type { CallOrDecline } from "../records/hop.js";
import { inputChars } from "../runtime/tool-call-prompt.js";
import type { Tool } from "../tools/define-tool.js";
import type { ToolSpec } from "../tools/tool-spec.js";
import { percentile } from "../traces/trace-stats.js";
import type { DecisionCase } from "./decision-suite.js";
import { decisionMatch, type DecisionCall, type FreeTextRule } from "./decision-match.js";

/**
 * One level of a chain: a backend and the gate's threshold for it (`undefined`: no confidence check). A backend
 * with a trust model (`delegate.trust`: `withTrust`, the `trust=FILE` spec option) is judged by it, as a delegate
 * node's gate judges it: the trusted probability must reach the model's threshold and `minConfidence` (a floor).
 */
export interface ChainLevel {
  delegate: ToolCallDelegate;
  minConfidence?: number;
}

/** What one level did with what reached it. Shares are of all records; precision is of what it decided. */
export interface LevelScore {
  delegate: string;
  minConfidence: number | null;
  /**
   * Present when the level's backend has a trust model: the gate held each proposal's trusted probability to
   * `threshold` and to `minConfidence` (a floor), not its raw confidence, and every number here is under that gate.
   */
  trustGate?: { threshold: number };
  /** Records that reached this level (all of them at the first). */
  asked: number;
  /** Proposals the gate accepted: the level decided them. */
  decided: number;
  /** `decided` over all records. */
  decidedShare: number;
  /** Decided calls that are the person's (see `decisionMatch`). */
  correct: number;
  /** `correct / decided`; null when it decided nothing. */
  precision: number | null;
  /** The 95 % Wilson interval of `precision`; null when it decided nothing. */
  precisionInterval: [number, number] | null;
  /** Proposals, gate or not, that are the person's call (a decline where the person declined counts). */
  exact: number;
  /** `exact` over the records this level was asked; null when none was. */
  exactAccuracy: number | null;
  /** Verdicts of the gate on this level's proposals (`too_many_tools`: not asked, more tools than it takes). */
  verdicts: Record<string, number>;
  /** Median and 90th percentile (nearest rank) of the time a proposal took, ms; null when none was asked. */
  latencyMs: { median: number; p90: number } | null;
}

/** The whole chain at the gate: what any level decided, and what reached the person. */
export interface ChainScore {
  levels: LevelScore[];
  records: number;
  decided: number;
  decidedShare: number;
  correct: number;
  precision: number | null;
  precisionInterval: [number, number] | null;
  /** Records no level decided (they go to a person). */
  passedOn: number;
}

/** One level's answer to one record, as {@link EvaluateChainOptions.onProposal} sees it. */
export interface ChainAnswer {
  /** The level's index in the chain. */
  level: number;
  /** The record's position. */
  item: number;
  /** The gate's verdict (`too_many_tools`, `input_too_long`: not asked). */
  verdict: string;
  /** The proposal, when the gate could read one. */
  proposal?: DecisionCall;
  confidence: number | null;
  /** The proposal's similarities to the worked examples it was shown, most similar first. */
  examples?: number[];
  /**
   * What the level before proposed for the record, when it proposed something readable: the last level asked
   * before this one (a level whose `maxTools` the record's tools exceed is not asked, as in a node's cascade).
   */
  previous?: DecisionCall;
  /**
   * The signals a trust model reads for `proposal`, as the gate reads them (`trustSignals`): its confidence,
   * whether it agrees with `previous` (absent when no level before was asked), its similarity to the nearest
   * worked example. Set with `proposal`.
   */
  signals?: TrustSignals;
  /** Whether `proposal` is the person's call. */
  correct: boolean;
}

/** Options of {@link evaluateChain}. */
export interface EvaluateChainOptions {
  /** How free-text arguments are scored; default none: every argument exactly. */
  freeText?: FreeTextRule;
  /** Called after each record with how many are done. */
  onCase?: (done: number, total: number) => void;
  /** Called for each level's answer to a record (e.g. to fit a trust model per level: `trustRowsOf`). */
  onProposal?: (answer: ChainAnswer) => void;
  signal?: AbortSignal;
  /** @internal The clock proposals are timed with (tests). Default `performance.now`. */
  _internal?: { now?: () => number };
}

/**
 * Runs decision records through a chain of delegate backends as a delegate node's cascade does: the first level
 * is asked every record; the accept gate (the node's candidates, their schemas, the level's `min_confidence`, its
 * trust model when it has one) accepts its call or passes the record on, and each later level is asked only what
 * the one before passed on.
 * Side effects are not judged (every candidate counts as delegate-safe): what is measured is the call. A backend
 * error is a pass-on, counted; any other error is thrown. Records are asked as `item` N (their position) of
 * their node, so a scripted backend can answer them. The backends are not closed.
 */
export async function evaluateChain(
  levels: readonly ChainLevel[],
  cases: readonly DecisionCase[],
  options: EvaluateChainOptions = {},
): Promise<ChainScore> {
  const now = options._internal?.now ?? (() => performance.now());
  const tallies = levels.map(() => ({
    asked: 0,
    decided: 0,
    correct: 0,
    exact: 0,
    proposed: 0,
    verdicts: {} as Record<string, number>,
    latencies: [] as number[],
  }));
  for (const [item, record] of cases.entries()) {
    // The hop before, as a node's cascade keeps it for the next backend's trust model (none before the first).
    let levelBefore: { proposal: CallOrDecline | undefined } | undefined;
    for (const [i, level] of levels.entries()) {
      options.signal?.throwIfAborted();
      const tally = tallies[i]!;
      tally.asked++;
      const answer = await askLevel(level, record, item, now, options.signal, levelBefore);
      const previous = levelBefore?.proposal;
      const { verdict, call, proposal, ms } = answer;
      tally.verdicts[verdict] = (tally.verdicts[verdict] ?? 0) + 1;
      if (ms !== undefined) {
        tally.proposed++;
        tally.latencies.push(ms);
      }
      const exact = proposal !== undefined && decisionMatch(proposal, record.call, options.freeText);
      if (exact) tally.exact++;
      options.onProposal?.({
        level: i,
        item,
        verdict,
        ...(proposal ? { proposal } : {}),
        confidence: answer.confidence ?? null,
        ...(answer.examples ? { examples: answer.examples } : {}),
        ...(previous ? { previous: { name: previous.name, arguments: previous.arguments ?? {} } } : {}),
        ...(answer.signals ? { signals: answer.signals } : {}),
        correct: exact,
      });
      // A level the record's tools do not fit was not asked: no hop, as in a node's cascade.
      if (verdict !== "too_many_tools") levelBefore = hopBefore(proposal, verdict);
      if (call) {
        tally.decided++;
        if (decisionMatch(call, record.call, options.freeText)) tally.correct++;
        break;
      }
    }
    options.onCase?.(item + 1, cases.length);
  }
  const total = cases.length;
  const scores = tallies.map((t, i): LevelScore => {
    const sorted = [...t.latencies].sort((a, b) => a - b);
    const trust = levels[i]!.delegate.trust;
    return {
      delegate: levels[i]!.delegate.name,
      minConfidence: levels[i]!.minConfidence ?? null,
      ...(trust ? { trustGate: { threshold: trust.threshold } } : {}),
      asked: t.asked,
      decided: t.decided,
      decidedShare: share(t.decided, total),
      correct: t.correct,
      precision: t.decided > 0 ? t.correct / t.decided : null,
      precisionInterval: t.decided > 0 ? wilsonInterval(t.correct, t.decided) : null,
      exact: t.exact,
      exactAccuracy: t.proposed > 0 ? t.exact / t.proposed : null,
      verdicts: t.verdicts,
      latencyMs: sorted.length > 0 ? { median: percentile(sorted, 50), p90: percentile(sorted, 90) } : null,
    };
  });
  const decided = scores.reduce((n, s) => n + s.decided, 0);
  const correct = scores.reduce((n, s) => n + s.correct, 0);
  return {
    levels: scores,
    records: total,
    decided,
    decidedShare: share(decided, total),
    correct,
    precision: decided > 0 ? correct / decided : null,
    precisionInterval: decided > 0 ? wilsonInterval(correct, decided) : null,
    passedOn: total - decided,
  };
}

/** One level's answer to one record: the gate's verdict, its call when accepted, and the proposal's time. */
async function askLevel(
  level: ChainLevel,
  record: DecisionCase,
  item: number,
  now: () => number,
  signal: AbortSignal | undefined,
  levelBefore: { proposal: CallOrDecline | undefined } | undefined,
): Promise<{
  verdict: string;
  call?: { name: string; arguments: Record<string, unknown> };
  proposal?: DecisionCall;
  confidence?: number | null;
  examples?: number[];
  signals?: TrustSignals;
  ms?: number;
}> {
  const { delegate } = level;
  if (record.tools.length > delegate.maxTools) return { verdict: "too_many_tools" };
  const chars = inputChars(record.instruction, record.facts);
  if (chars > delegate.maxInputChars) return { verdict: "input_too_long" };
  const started = now();
  let proposal: Proposal | undefined;
  let backendError: unknown;
  try {
    proposal = await delegate.propose({
      instruction: record.instruction,
      facts: record.facts,
      tools: record.tools,
      context: { runId: "eval", nodeId: record.nodeId, item },
      ...(signal ? { signal } : {}),
    });
  } catch (error) {
    if (!DelegateBackendError.isInstance(error)) throw error;
    backendError = error;
  }
  const ms = Math.max(0, now() - started);
  const gate = acceptGate({
    proposal,
    ...(backendError === undefined ? {} : { backendError }),
    candidates: record.tools.map((t) => t.name),
    findTool: (name) => toolOf(record.tools.find((t) => t.name === name)),
    allowSideEffects: { node: true, host: true },
    ...(level.minConfidence === undefined ? {} : { minConfidence: level.minConfidence }),
    // The level's trust model, read exactly as a delegate node's gate reads it.
    ...(delegate.trust ? { trust: { model: delegate.trust, ...(levelBefore ? { levelBefore } : {}) } } : {}),
  });
  // A proposal the gate could read (not a backend error, not an unusable shape) is scored for exact accuracy.
  const usable = gate.verdict !== "backend_error" && proposal !== undefined ? proposal : undefined;
  return {
    verdict: gate.verdict,
    ...(gate.call ? { call: gate.call } : {}),
    ...(usable
      ? {
          proposal: { name: usable.name, arguments: usable.arguments ?? {} },
          confidence: usable.confidence ?? null,
          ...(Array.isArray(usable.examples) ? { examples: usable.examples } : {}),
          signals: trustSignals(usable, levelBefore),
        }
      : {}),
    ms,
  };
}

const tools = new WeakMap<ToolSpec, Tool>();

/** A candidate as the gate looks tools up: its schema, delegate-safe (the side-effect key is not measured). */
function toolOf(spec: ToolSpec | undefined): Tool | undefined {
  if (!spec) return undefined;
  let tool = tools.get(spec);
  if (!tool) {
    tool = {
      name: spec.name,
      description: spec.description,
      delegateDescription: undefined,
      parameters: spec.parameters,
      delegateSafe: true,
      sensitive: [],
      run: () => undefined,
    };
    tools.set(spec, tool);
  }
  return tool;
}

function share(n: number, total: number): number {
  return total > 0 ? n / total : 0;
}
