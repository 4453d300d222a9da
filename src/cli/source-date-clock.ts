import { InvalidOptionError } from "../errors/invalid-option-error.js";
import type { Clock } from "../runtime/clock.js";

/**
 * The clock of a model's `createdAt` when `SOURCE_DATE_EPOCH` (whole seconds, the reproducible-builds
 * convention) is set: with it the same inputs and seed write a byte-identical model file. Undefined otherwise.
 */
export function sourceDateClock(env: NodeJS.ProcessEnv = process.env): Clock | undefined {
  const raw = env.SOURCE_DATE_EPOCH;
  if (raw === undefined || raw === "") return undefined;
  if (!/^\d+$/.test(raw))
    throw new InvalidOptionError("SOURCE_DATE_EPOCH", "whole seconds since 1970-01-01", raw);
  const ms = Number(raw) * 1000;
  return () => ms;
}
