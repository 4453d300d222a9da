import { InvalidOptionError } from "../errors/invalid-option-error.js";

const DEFAULT_SOFT_TIMEOUT_S = 30;
const DEFAULT_MAX_VALUE_CHARS = 20_000;

/** What an authored run of a plan the calling model gave as JSON records as its objective. */
export const CALLER_PLAN = "(a plan the calling model gave as JSON)";

/** `planTools`' options checked, with their defaults: each bad one is an `InvalidOptionError` naming it. */
export function checkedOptions<Plans>(options: {
  store: { loadSummary?: unknown } | undefined;
  softTimeout?: number;
  maxValueChars?: number;
  plans?: Plans;
}) {
  if (typeof options !== "object" || options === null)
    throw new InvalidOptionError("planTools(options)", "an object", options);
  if (options.store === undefined || typeof options.store?.loadSummary !== "function")
    throw new InvalidOptionError("store", "a RunStore", options.store);
  const softTimeout = options.softTimeout ?? DEFAULT_SOFT_TIMEOUT_S;
  if (typeof softTimeout !== "number" || !(softTimeout >= 0) || softTimeout > 86_400)
    throw new InvalidOptionError("softTimeout", "a number of seconds from 0 to 86400", softTimeout);
  const maxChars = options.maxValueChars ?? DEFAULT_MAX_VALUE_CHARS;
  if (!Number.isInteger(maxChars) || maxChars < 100)
    throw new InvalidOptionError("maxValueChars", "an integer ≥ 100", maxChars);
  const plans = options.plans;
  if (plans !== undefined && typeof plans !== "string" && (typeof plans !== "object" || plans === null))
    throw new InvalidOptionError("plans", "a folder of plans or a record of plans by name", plans);
  return { softTimeout, maxChars, plans };
}
