import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { DistilledModelError } from "../errors/distilled-model-error.js";
import {
  TRUST_SIGNALS,
  type TrustFit,
  type TrustFittedFor,
  type TrustModelData,
  type TrustSignal,
} from "./trust-model.js";

/**
 * What a trust file holds: a fitted model, or a fit that found too few decisions (or none that support the
 * target) and says how many it needs — the level keeps today's gate.
 */
export type TrustFile =
  | { status: "fitted"; model: TrustModelData }
  | {
      status: "too_few" | "unsupported";
      decisions: number;
      needed: number | null;
      reason: string;
      fittedFor?: TrustFittedFor;
    };

/**
 * Checks a parsed trust model file field by field (it is read from disk: anything may be in it) and returns it
 * typed; every problem is listed in one {@link DistilledModelError} (`DISTILLED_MODEL_INVALID`).
 */
export function validateTrustModel(value: unknown, where = "<object>"): TrustModelData {
  const problems: string[] = [];
  const v = (typeof value === "object" && value !== null && !Array.isArray(value) ? value : {}) as Record<
    string,
    unknown
  >;
  if (v.format !== "deputy-trust-model") problems.push(`format: expected "deputy-trust-model"`);
  if (v.version !== 1) problems.push("version: expected 1");
  const signals = Array.isArray(v.signals) ? v.signals : [];
  if (
    !Array.isArray(v.signals) ||
    signals.length === 0 ||
    signals.some((s) => !TRUST_SIGNALS.includes(s as TrustSignal))
  )
    problems.push(`signals: expected a non-empty list of ${TRUST_SIGNALS.join(", ")}`);
  const c = (typeof v.calibrator === "object" && v.calibrator !== null ? v.calibrator : {}) as Record<
    string,
    unknown
  >;
  const numbers = (key: string, positive = false) => {
    const list = c[key];
    if (
      !Array.isArray(list) ||
      list.length !== signals.length ||
      list.some((n) => typeof n !== "number" || !Number.isFinite(n) || (positive && n <= 0))
    )
      problems.push(`calibrator.${key}: expected ${signals.length} ${positive ? "positive " : ""}numbers`);
  };
  if (c.method !== "logistic") problems.push(`calibrator.method: expected "logistic"`);
  numbers("mean");
  numbers("scale", true);
  numbers("weights");
  if (typeof c.bias !== "number" || !Number.isFinite(c.bias))
    problems.push("calibrator.bias: expected a number");
  const inUnit = (key: string, open: boolean) => {
    const n = v[key];
    if (typeof n !== "number" || !(open ? n > 0 && n < 1 : n >= 0 && n <= 1))
      problems.push(`${key}: expected a number ${open ? "between 0 and 1" : "from 0 to 1"}`);
  };
  inUnit("threshold", false);
  inUnit("targetPrecision", true);
  if (!(typeof v.decisions === "number" && Number.isInteger(v.decisions) && v.decisions >= 0))
    problems.push("decisions: expected a whole number");
  if (typeof v.outOfFold !== "object" || v.outOfFold === null) problems.push("outOfFold: expected an object");
  problems.push(...fittedForProblems(v.fittedFor));
  if (problems.length > 0) throw new DistilledModelError(where, problems);
  // The calibrator's input names are the signals, whatever the file says (the map reads them in that order).
  return {
    ...(v as unknown as TrustModelData),
    calibrator: { ...(c as unknown as TrustModelData["calibrator"]), inputs: [...signals] as string[] },
  };
}

/** Reads and checks a trust model file ({@link validateTrustModel}). */
export function loadTrustModel(path: string): TrustModelData {
  return validateTrustModel(readJson(path), path);
}

/** What is wrong with a file's `fittedFor` record (absent is fine: files written before it have none). */
function fittedForProblems(value: unknown): string[] {
  if (value === undefined) return [];
  const f = value as Record<string, unknown>;
  const ok =
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    typeof f.kind === "string" &&
    typeof f.spec === "string" &&
    (f.file === undefined || typeof f.file === "string") &&
    (f.sha256 === undefined || (typeof f.sha256 === "string" && /^[0-9a-f]{64}$/.test(f.sha256)));
  return ok ? [] : ["fittedFor: expected { kind, spec, file?, sha256? } (sha256: 64 hex digits)"];
}

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch (cause) {
    throw new DistilledModelError(path, [`cannot be read as JSON (${(cause as Error).message})`], { cause });
  }
}

/**
 * Checks a parsed trust file: a fitted model ({@link validateTrustModel}; no `status`) or a refused fit (`status`
 * `too_few` or `unsupported`, with `decisions`, `needed` and `reason`). Every problem is listed in one
 * {@link DistilledModelError}.
 */
export function validateTrustFile(value: unknown, where = "<object>"): TrustFile {
  const v = (typeof value === "object" && value !== null && !Array.isArray(value) ? value : {}) as Record<
    string,
    unknown
  >;
  if (v.status === undefined) return { status: "fitted", model: validateTrustModel(value, where) };
  const problems: string[] = [];
  if (v.format !== "deputy-trust-model") problems.push(`format: expected "deputy-trust-model"`);
  if (v.version !== 1) problems.push("version: expected 1");
  if (v.status !== "too_few" && v.status !== "unsupported")
    problems.push(`status: expected "too_few" or "unsupported" (a fitted model has none)`);
  const whole = (n: unknown) => typeof n === "number" && Number.isInteger(n) && n >= 0;
  if (!whole(v.decisions)) problems.push("decisions: expected a whole number");
  if (v.needed !== null && !whole(v.needed)) problems.push("needed: expected a whole number or null");
  if (typeof v.reason !== "string") problems.push("reason: expected a string");
  problems.push(...fittedForProblems(v.fittedFor));
  if (problems.length > 0) throw new DistilledModelError(where, problems);
  return {
    status: v.status as "too_few" | "unsupported",
    decisions: v.decisions as number,
    needed: v.needed as number | null,
    reason: v.reason as string,
    ...(v.fittedFor === undefined ? {} : { fittedFor: v.fittedFor as TrustFittedFor }),
  };
}

/** Reads and checks a trust file ({@link validateTrustFile}): a fitted model or a refused fit. */
export function loadTrustFile(path: string): TrustFile {
  return validateTrustFile(readJson(path), path);
}

/**
 * Writes what `fitTrustModel` found: the model when it fitted (the format {@link loadTrustModel} reads),
 * else the refusal with the decisions it needs, so a level's gate keeps today's threshold and says why. With
 * `fittedFor`, the file records the level it was fitted for (see {@link TrustFittedFor}).
 */
export function saveTrustFit(path: string, fit: TrustFit, fittedFor?: TrustFittedFor): void {
  if (fit.status === "fitted")
    return saveTrustModel(path, fittedFor ? { ...fit.model, fittedFor } : fit.model);
  const { status, decisions, needed, reason } = fit;
  mkdirSync(dirname(path), { recursive: true });
  const refused = {
    format: "deputy-trust-model",
    version: 1,
    status,
    decisions,
    needed,
    reason,
    ...(fittedFor ? { fittedFor } : {}),
  };
  writeFileSync(path, JSON.stringify(refused, null, 1) + "\n");
}

/** Writes a trust model file (its folder is made when missing). */
export function saveTrustModel(path: string, model: TrustModelData): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, JSON.stringify(model, null, 1) + "\n");
}
