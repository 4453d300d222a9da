import { canonicalJson } from "../runtime/canonical-json.js";
import { commonPrefix, taskText } from "./encoder-input.js";
import type { TrainingExample } from "./training-examples.js";

/** The label of a decline: the node's call was to call nothing. */
export const DECLINE_LABEL = "<decline>";

/** One text a tuned reader trains on: deputy's encoder text of a decision, and the decision's label. */
export interface TuningExample {
  text: string;
  label: string;
}

/** What a label decides: the tool (null: decline) and its class arguments ({@link classArguments}). */
export interface LabelCall {
  name: string | null;
  arguments: Record<string, unknown>;
}

/**
 * What a reader is tuned on: the texts, their labels (sorted), what each label decides, and the prefix cut from
 * every instruction.
 */
export interface TuningSet {
  prefix: string;
  labels: string[];
  calls: Record<string, LabelCall>;
  examples: TuningExample[];
}

/** Per tool, the arguments a person chooses among (see {@link classArguments}). */
export type ClassArguments = ReadonlyMap<string, ReadonlySet<string>>;

const valueText = (v: unknown) => (typeof v === "string" ? v : canonicalJson(v));

/**
 * The arguments whose value a person chooses among rather than copies from the input: those the tool's schema
 * limits to an enum or a boolean, and those whose values, over the examples, are copied from the input's text in
 * fewer than half the calls and take at most a quarter as many distinct values as there are calls (at least two):
 * the alert example's `reason` and `project`, not its `alert_id` or `summary`, which the distilled level's span
 * heads read. Decided per tool over the whole set, so one alert that happens to contain the word does not change
 * its label.
 */
export function classArguments(examples: readonly TrainingExample[]): ClassArguments {
  const stats = new Map<
    string,
    Map<string, { calls: number; copied: number; values: Set<string>; chosen: boolean }>
  >();
  for (const e of examples) {
    if (e.call.name === null) continue;
    const properties: unknown = e.tools.find((t) => t.name === e.call.name)?.parameters["properties"];
    const text = `${e.instruction}\n${canonicalJson(e.facts)}`;
    const byKey = stats.get(e.call.name) ?? new Map();
    stats.set(e.call.name, byKey);
    for (const [key, value] of Object.entries(e.call.arguments)) {
      const schema =
        properties && typeof properties === "object" && Object.hasOwn(properties, key)
          ? (properties as Record<string, unknown>)[key]
          : undefined;
      const s = (schema && typeof schema === "object" ? schema : {}) as { enum?: unknown; type?: unknown };
      const entry = byKey.get(key) ?? { calls: 0, copied: 0, values: new Set<string>(), chosen: false };
      byKey.set(key, entry);
      entry.calls++;
      entry.chosen ||= Array.isArray(s.enum) || s.type === "boolean";
      const v = valueText(value);
      entry.values.add(canonicalJson(value));
      if (v !== "" && text.includes(v)) entry.copied++;
    }
  }
  const out = new Map<string, Set<string>>();
  for (const [tool, byKey] of stats) {
    const keys = new Set<string>();
    for (const [key, s] of byKey)
      if (s.chosen || (s.copied * 2 < s.calls && s.values.size <= Math.max(2, s.calls / 4))) keys.add(key);
    out.set(tool, keys);
  }
  return out;
}

/**
 * The label a reader learns for a call: the tool's name, then `key=value` for each of its class arguments (sorted
 * by key; values as canonical JSON). A decline is {@link DECLINE_LABEL}.
 */
export function callLabel(call: TrainingExample["call"], classes: ClassArguments): string {
  if (call.name === null) return DECLINE_LABEL;
  const decided = labelCall(call, classes);
  const parts = Object.keys(decided.arguments)
    .sort()
    .map((k) => `${k}=${canonicalJson(decided.arguments[k])}`);
  return [call.name, ...parts].join(" ");
}

/** The part of a call its label decides: the tool and its class arguments. */
export function labelCall(call: TrainingExample["call"], classes: ClassArguments): LabelCall {
  if (call.name === null) return { name: null, arguments: {} };
  const keys = classes.get(call.name);
  const args: Record<string, unknown> = {};
  for (const k of Object.keys(call.arguments).sort()) if (keys?.has(k)) args[k] = call.arguments[k];
  return { name: call.name, arguments: args };
}

/**
 * The tuning set of a node's labelled examples: each text is what the distilled level's encoder reads
 * ({@link taskText}: the facts, the instruction without the prefix all instructions share, `Action:`), so the
 * reader is tuned on exactly what it will embed; each label is {@link callLabel}.
 */
export function tuningSet(examples: readonly TrainingExample[]): TuningSet {
  const prefix = commonPrefix(examples.map((e) => e.instruction));
  const classes = classArguments(examples);
  const calls: Record<string, LabelCall> = {};
  const rows = examples.map((e) => {
    const label = callLabel(e.call, classes);
    calls[label] ??= labelCall(e.call, classes);
    return { text: taskText(e.instruction, e.facts, prefix), label };
  });
  return { prefix, labels: Object.keys(calls).sort(), calls, examples: rows };
}
