import { Calibrator, logit, type CalibrationRow, type CalibratorData } from "../confidence/calibrator.js";
import { auroc, riskCoverage, wilsonInterval, type ScoredOutcome } from "../confidence/score-metrics.js";
import type { ProposalTrust, TrustSignals } from "../delegate/protocol.js";

export type { TrustSignals } from "../delegate/protocol.js";

/** One decision a level proposed for: its signals and whether its call was the person's. */
export interface TrustRow {
  signals: TrustSignals;
  correct: boolean;
}

/** The signals a trust model can read, in its inputs' order. */
export const TRUST_SIGNALS = ["confidence", "agreesWithPrevious", "nearestSimilarity"] as const;
export type TrustSignal = (typeof TRUST_SIGNALS)[number];

/**
 * What a trust model was fitted for: the level's backend kind, its spec (secrets redacted, without `trust=`) and,
 * when the spec names a file (a distilled model, a GGUF), that file and its sha256. A level whose file has another
 * sha256 refuses the trust file (`DISTILLED_TRUST_MISMATCH`). Files written before the record have none.
 */
export interface TrustFittedFor {
  kind: string;
  spec: string;
  file?: string;
  sha256?: string;
}

/** A fitted trust model: a calibrated probability of "right" from the signals, and the threshold it supports. */
export interface TrustModelData {
  format: "deputy-trust-model";
  version: 1;
  /** The signals it reads (those present on every row and not constant), in the calibrator's input order. */
  signals: TrustSignal[];
  calibrator: CalibratorData;
  /** The smallest probability it accepts: chosen out of fold, its Wilson lower bound at the target. */
  threshold: number;
  targetPrecision: number;
  /** The decisions it was fitted on. */
  decisions: number;
  /** How the threshold did out of fold (each decision scored by a fit that did not see it). */
  outOfFold: {
    folds: number;
    accepted: number;
    coverage: number;
    precision: number;
    wilsonLower: number;
    auroc: number | null;
  };
  /** The level it was fitted for (`deputy learn`, `deputy eval --trust-out`); absent in older files. */
  fittedFor?: TrustFittedFor;
}

/** What {@link fitTrustModel} found: a model, or why not (today's threshold stays) with the decisions it needs. */
export type TrustFit =
  | { status: "fitted"; model: TrustModelData; ignored: number }
  | {
      status: "too_few" | "unsupported";
      decisions: number;
      /** About how many decisions would support the target (`null`: none would, at the level's precision). */
      needed: number | null;
      reason: string;
      ignored: number;
    };

/** Options of {@link fitTrustModel}. */
export interface FitTrustOptions {
  /** Precision whose Wilson lower bound the threshold must reach. Default 0.97. */
  targetPrecision?: number;
  /** z of the Wilson bound. Default 1.96 (95 %). */
  z?: number;
  /** Folds of the out-of-fold scores (by position). Default 5. */
  folds?: number;
}

const L2 = 0.01;

/**
 * The fewest accepted decisions, all of them right, whose Wilson lower bound reaches `target`: n / (n + z²) ≥
 * target. Fewer than this can support no threshold, however good the level is (0.97 at 95 %: 125).
 */
export function minimumDecisions(target: number, z = 1.96): number {
  return Math.ceil((z * z * target) / (1 - target) - 1e-9);
}

/**
 * Fits a level's trust model: logistic regression (the calibrator `deputy calibrate` and distill use) from the
 * signals to "the call is the person's", and the lowest probability threshold whose accepted decisions, scored out
 * of fold, have a Wilson lower bound of precision at least the target. Rows with a signal out of range are ignored
 * (counted). With fewer decisions than {@link minimumDecisions}, with only right or only wrong calls, or when no
 * threshold's bound reaches the target, it fits nothing and says how many decisions it needs: the level keeps
 * today's threshold. It never throws on its rows.
 */
export function fitTrustModel(rows: readonly TrustRow[], options: FitTrustOptions = {}): TrustFit {
  const target = options.targetPrecision ?? 0.97;
  const z = options.z ?? 1.96;
  const folds = options.folds ?? 5;
  if (!(target > 0 && target < 1))
    throw new RangeError(`targetPrecision must be between 0 and 1, got ${target}`);
  if (!(z > 0 && Number.isFinite(z))) throw new RangeError(`z must be a positive number, got ${z}`);
  if (!(Number.isInteger(folds) && folds >= 2))
    throw new RangeError(`folds must be an integer ≥ 2, got ${folds}`);
  const valid = rows.filter(isValidRow);
  const ignored = rows.length - valid.length;
  const needed = minimumDecisions(target, z);
  const right = valid.filter((r) => r.correct).length;
  const refuse = (
    status: "too_few" | "unsupported",
    reason: string,
    need: number | null = needed,
  ): TrustFit => ({
    status,
    decisions: valid.length,
    needed: need,
    reason,
    ignored,
  });
  if (valid.length < needed)
    return refuse(
      "too_few",
      `${valid.length} decisions; a precision bound of ${target} needs at least ${needed}`,
    );
  const signals = usedSignals(valid);
  const table = valid.map((r) => ({ inputs: inputsOf(r.signals, signals), correct: r.correct }));
  const outOfFold = crossValidate(table, folds, signals);
  const best = supportedThreshold(outOfFold, target, z);
  if (!best) {
    const more = decisionsNeeded(outOfFold, target, z);
    return refuse(
      "unsupported",
      `no threshold's Wilson lower bound (z = ${z}) reaches ${target} out of fold on ${valid.length} decisions (${right} right)`,
      more === undefined ? null : Math.max(needed, more),
    );
  }
  const calibrator = fit(table, signals);
  return {
    status: "fitted",
    ignored,
    model: {
      format: "deputy-trust-model",
      version: 1,
      signals,
      calibrator: calibrator.toJSON(),
      threshold: best.threshold,
      targetPrecision: target,
      decisions: valid.length,
      outOfFold: {
        folds,
        accepted: best.accepted,
        coverage: best.accepted / valid.length,
        precision: best.correct / best.accepted,
        wilsonLower: best.wilsonLower,
        auroc: auroc(outOfFold) ?? null,
      },
    },
  };
}

/**
 * A fitted trust model in use: the probability a proposal is right, and whether the gate should accept it. A
 * delegate node's gate uses it through the backend's `trust` (`withTrust`, the `trust=FILE` spec option).
 */
export class TrustModel implements ProposalTrust {
  readonly data: TrustModelData;
  readonly #calibrator: Calibrator;

  constructor(data: TrustModelData) {
    this.data = data;
    this.#calibrator = new Calibrator(data.calibrator);
  }

  /** The smallest probability it accepts (`data.threshold`). */
  get threshold(): number {
    return this.data.threshold;
  }

  /** The calibrated probability that the call is right; `null` when a signal it reads is missing or out of range. */
  probability(signals: TrustSignals): number | null {
    if (!isValidRow({ signals, correct: true })) return null;
    if (this.data.signals.some((s) => signals[s] === undefined)) return null;
    const p = this.#calibrator.confidence(inputsOf(signals, this.data.signals));
    return Number.isFinite(p) ? p : null;
  }

  /** Whether the proposal reaches the model's threshold (a missing signal never does). */
  accepts(signals: TrustSignals): boolean {
    const p = this.probability(signals);
    return p !== null && p >= this.data.threshold;
  }
}

function isValidRow(row: TrustRow): boolean {
  if (typeof row !== "object" || row === null || typeof row.correct !== "boolean") return false;
  const s = row.signals as unknown as Record<string, unknown>;
  if (typeof s !== "object" || s === null) return false;
  const c = s.confidence;
  if (c !== null && !(typeof c === "number" && c >= 0 && c <= 1)) return false;
  if (s.agreesWithPrevious !== undefined && typeof s.agreesWithPrevious !== "boolean") return false;
  const n = s.nearestSimilarity;
  return n === undefined || (typeof n === "number" && n >= -1 && n <= 1);
}

/** Confidence always; another signal when every row has it and it is not the same on all of them. */
function usedSignals(rows: readonly TrustRow[]): TrustSignal[] {
  const varies = (s: TrustSignal) =>
    rows.every((r) => r.signals[s] !== undefined) && new Set(rows.map((r) => r.signals[s])).size > 1;
  return TRUST_SIGNALS.filter((s) => s === "confidence" || varies(s));
}

function inputsOf(signals: TrustSignals, used: readonly TrustSignal[]): number[] {
  return used.map((s) =>
    s === "confidence"
      ? logit(signals.confidence ?? 0)
      : s === "agreesWithPrevious"
        ? signals.agreesWithPrevious
          ? 1
          : 0
        : signals.nearestSimilarity!,
  );
}

/** The calibrator on these rows; a constant (the share right) when a fold holds one outcome only. */
function fit(rows: readonly CalibrationRow[], signals: readonly TrustSignal[]): Calibrator {
  const right = rows.filter((r) => r.correct).length;
  const fitted = right > 0 && right < rows.length ? Calibrator.fit(rows, L2, signals) : undefined;
  const data = fitted?.toJSON();
  if (data && [...data.weights, data.bias, ...data.mean, ...data.scale].every(Number.isFinite))
    return fitted!;
  const share = (right + 0.5) / (rows.length + 1);
  return new Calibrator({
    method: "logistic",
    inputs: [...signals],
    mean: signals.map(() => 0),
    scale: signals.map(() => 1),
    weights: signals.map(() => 0),
    bias: logit(share),
  });
}

function crossValidate(
  rows: readonly CalibrationRow[],
  folds: number,
  signals: readonly TrustSignal[],
): ScoredOutcome[] {
  const out: ScoredOutcome[] = [];
  for (let k = 0; k < folds; k++) {
    const test = rows.filter((_, i) => i % folds === k);
    if (test.length === 0) continue;
    const model = fit(
      rows.filter((_, i) => i % folds !== k),
      signals,
    );
    for (const r of test) out.push({ score: model.confidence(r.inputs), correct: r.correct });
  }
  return out;
}

/** The lowest score whose accepted outcomes (score ≥ it) have a Wilson lower bound ≥ target; undefined if none. */
function supportedThreshold(outcomes: readonly ScoredOutcome[], target: number, z: number) {
  const sorted = [...outcomes].sort((a, b) => b.score - a.score);
  let best: { threshold: number; accepted: number; correct: number; wilsonLower: number } | undefined;
  let correct = 0;
  for (let i = 0; i < sorted.length; i++) {
    correct += sorted[i]!.correct ? 1 : 0;
    if (i + 1 < sorted.length && sorted[i + 1]!.score === sorted[i]!.score) continue;
    const lower = wilsonInterval(correct, i + 1, z)[0];
    if (lower >= target && Number.isFinite(sorted[i]!.score))
      best = { threshold: sorted[i]!.score, accepted: i + 1, correct, wilsonLower: lower };
  }
  return best;
}

/**
 * About how many decisions, with the shares seen out of fold, would let some threshold's bound reach the target:
 * for each threshold whose precision beats the target, the accepted decisions its precision needs over the share
 * it accepts; the fewest. `undefined` when no threshold's precision beats the target.
 */
function decisionsNeeded(outcomes: readonly ScoredOutcome[], target: number, z: number): number | undefined {
  let fewest: number | undefined;
  for (const point of riskCoverage(outcomes)) {
    const accepted = decisionsFor(point.precision, target, z);
    if (accepted === undefined) continue;
    const total = Math.ceil(accepted / point.coverage);
    if (fewest === undefined || total < fewest) fewest = total;
  }
  return fewest;
}

/** About how many accepted decisions at precision p give a Wilson lower bound at the target (undefined: never). */
function decisionsFor(p: number, target: number, z: number): number | undefined {
  if (p <= target) return undefined;
  for (let n = 1; n <= 1_000_000; n *= 2) {
    if (wilsonInterval(Math.round(p * n), n, z)[0] >= target) {
      let lo = Math.max(1, n / 2);
      let hi = n;
      while (lo < hi) {
        const mid = Math.floor((lo + hi) / 2);
        if (wilsonInterval(Math.round(p * mid), mid, z)[0] >= target) hi = mid;
        else lo = mid + 1;
      }
      return hi;
    }
  }
  return undefined;
}
