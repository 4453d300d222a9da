import { InvalidOptionError } from "../errors/invalid-option-error.js";
import { canonicalJson } from "../runtime/canonical-json.js";

/** A call as a decision holds it (`name: null`: decline). */
export interface DecisionCall {
  name: string | null;
  arguments: Record<string, unknown>;
}

/**
 * How free-text arguments are scored: the named arguments (`summary`, `title`) are not compared exactly, since a
 * person and a model word a summary differently. When the person's call has such an argument, the proposal's
 * must be a string with something other than white space in it and, with `minOverlap` above 0, contain at least
 * that share of the person's distinct word tokens (lower-cased runs of letters and digits). Every other argument
 * is compared exactly (canonical JSON).
 */
export interface FreeTextRule {
  names: readonly string[];
  /** Share (0–1) of the person's word tokens the proposal's text must contain. Default 0: present and non-empty. */
  minOverlap?: number;
}

/**
 * Whether a proposed call is the person's: the same tool (or both a decline) and the same arguments as
 * canonical JSON (key order aside), the free-text arguments of `rule` scored by it instead.
 *
 * @example
 * decisionMatch(proposed, person, { names: ["summary"], minOverlap: 0.5 });
 */
export function decisionMatch(proposed: DecisionCall, person: DecisionCall, rule?: FreeTextRule): boolean {
  if (proposed.name !== person.name) return false;
  if (person.name === null) return true;
  const free = (rule?.names ?? []).filter((n) => Object.hasOwn(person.arguments, n));
  if (free.length === 0) return canonicalJson(proposed.arguments) === canonicalJson(person.arguments);
  const rest = (args: Record<string, unknown>) =>
    canonicalJson(Object.fromEntries(Object.entries(args).filter(([k]) => !free.includes(k))));
  if (rest(proposed.arguments) !== rest(person.arguments)) return false;
  return free.every((n) =>
    freeTextMatches(
      Object.hasOwn(proposed.arguments, n) ? proposed.arguments[n] : undefined,
      person.arguments[n],
      rule?.minOverlap ?? 0,
    ),
  );
}

/** The free-text rule for one argument (see {@link FreeTextRule}). */
export function freeTextMatches(proposed: unknown, person: unknown, minOverlap: number): boolean {
  if (typeof proposed !== "string" || proposed.trim() === "") return false;
  if (minOverlap <= 0) return true;
  const theirs = wordTokens(typeof person === "string" ? person : canonicalJson(person));
  if (theirs.size === 0) return true;
  const ours = wordTokens(proposed);
  let shared = 0;
  for (const t of theirs) if (ours.has(t)) shared++;
  return shared / theirs.size >= minOverlap;
}

/** Checks a free-text rule given by a user: names, and an overlap from 0 to 1. */
export function checkFreeTextRule(rule: FreeTextRule): FreeTextRule {
  if (rule.names.some((n) => typeof n !== "string" || n === ""))
    throw new InvalidOptionError("--free-text", "comma-separated argument names", rule.names.join(","));
  const overlap = rule.minOverlap;
  if (overlap !== undefined && !(typeof overlap === "number" && overlap >= 0 && overlap <= 1))
    throw new InvalidOptionError("--free-text-overlap", "a number from 0 to 1", overlap);
  return rule;
}

function wordTokens(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
}
