import type { JsonSchema } from "../schema/json-schema.js";
import type { ToolSpec } from "../delegate/protocol.js";
import { trainClassHead } from "./class-head.js";
import { countFamiliarity } from "./familiarity.js";
import { DEFAULT_FEATURES, prepareInput, type FeatureConfig, type PreparedInput } from "./input-features.js";
import { DECLINE_CLASS, type ArgumentHeadData } from "./model-file.js";
import { numberInInput, trainNumberHead } from "./number-head.js";
import type { PredictorData } from "./distilled-predictor.js";
import type { SgdOptions } from "./sgd-options.js";
import { SoftmaxClassifier } from "./softmax-classifier.js";
import { locateSpan, trainSpanHead, type SpanLocation } from "./span-head.js";
import type { TrainingExample } from "./training-examples.js";

/** A fitted predictor (no calibration yet) with what the model file records about its inputs. */
export interface FittedPredictor {
  predictor: Omit<PredictorData, "calibration">;
  tools: ToolSpec[];
  factKeys: string[];
}

/** The last spec seen of every tool the examples offered. */
export function learnedTools(examples: readonly TrainingExample[]): ToolSpec[] {
  const tools = new Map<string, ToolSpec>();
  for (const e of examples) for (const t of e.tools) tools.set(t.name, t);
  for (const e of examples) {
    if (e.call.name !== null && !tools.has(e.call.name))
      tools.set(e.call.name, { name: e.call.name, description: "", parameters: { type: "object" } });
  }
  return [...tools.values()].sort((a, b) => a.name.localeCompare(b.name));
}

function properties(schema: JsonSchema): Record<string, JsonSchema> {
  const p = schema.properties;
  return typeof p === "object" && p !== null ? (p as Record<string, JsonSchema>) : {};
}

/**
 * How an argument is predicted, from its schema and its training values: enums and booleans are classes; a
 * value that is always the same is a class of one; strings found in the text are spans and numbers found in the
 * text are read from it — unless repeating values explain more examples, then they are classes; anything else
 * (arrays, objects, strings made up by the teacher) is a class of the values seen.
 */
export function chooseArgumentKind(
  schema: JsonSchema | undefined,
  samples: readonly { input: PreparedInput; value: unknown }[],
): "class" | "span" | "number" {
  if (schema && (Array.isArray(schema.enum) || schema.type === "boolean")) return "class";
  const present = samples.filter((s) => s.value !== undefined);
  const counts = new Map<string, number>();
  for (const s of present)
    counts.set(JSON.stringify(s.value), (counts.get(JSON.stringify(s.value)) ?? 0) + 1);
  if (counts.size <= 1) return "class";
  const repeats = present.filter((s) => counts.get(JSON.stringify(s.value))! >= 2).length;
  if (present.every((s) => typeof s.value === "string")) {
    const spans = present.filter((s) => locateSpan(s.input, s.value as string)).length;
    return spans > 0 && spans >= repeats ? "span" : "class";
  }
  if (present.every((s) => typeof s.value === "number")) {
    const integer = schema?.type === "integer";
    const found = present.filter((s) => numberInInput(s.input, s.value as number, integer)).length;
    return found > 0 && found >= repeats ? "number" : "class";
  }
  return "class";
}

/** Trains the tool head and every argument head on labelled examples. */
export function fitPredictor(
  examples: readonly TrainingExample[],
  options: { features?: FeatureConfig; sgd?: SgdOptions; inputs?: readonly PreparedInput[] } = {},
): FittedPredictor {
  const features = options.features ?? DEFAULT_FEATURES;
  const sgd = options.sgd ?? {};
  // The trainer passes inputs it prepared once (with these features) for all its folds.
  const inputs = options.inputs ?? examples.map((e) => prepareInput(e.instruction, e.facts, features));
  const tools = learnedTools(examples);
  const chosen = [...new Set(examples.map((e) => e.call.name ?? DECLINE_CLASS))].sort();
  const classIndex = new Map(chosen.map((c, i) => [c, i]));
  const toolHead = SoftmaxClassifier.train(
    examples.map((e, i) => ({
      features: inputs[i]!.features,
      values: inputs[i]!.values,
      label: classIndex.get(e.call.name ?? DECLINE_CLASS)!,
    })),
    chosen,
    sgd,
  ).toJSON();

  const heads: Record<string, Record<string, ArgumentHeadData>> = {};
  for (const tool of tools) {
    const mine = examples.flatMap((e, i) =>
      e.call.name === tool.name ? [{ example: e, input: inputs[i]! }] : [],
    );
    if (mine.length === 0) continue;
    const props = properties(tool.parameters);
    const names = new Set([
      ...Object.keys(props),
      ...mine.flatMap((m) => Object.keys(m.example.call.arguments)),
    ]);
    const toolHeads: Record<string, ArgumentHeadData> = {};
    for (const name of [...names].sort()) {
      const samples = mine.map((m) => ({ input: m.input, value: m.example.call.arguments[name] }));
      if (samples.every((s) => s.value === undefined)) continue;
      const optional = samples.some((s) => s.value === undefined);
      const kind = chooseArgumentKind(props[name], samples);
      if (kind === "span") {
        const located = samples.flatMap(
          (s): { input: PreparedInput; location: SpanLocation | undefined }[] => {
            if (s.value === undefined) return [{ input: s.input, location: undefined }];
            const location = locateSpan(s.input, s.value as string);
            return location ? [{ input: s.input, location }] : [];
          },
        );
        toolHeads[name] = trainSpanHead(located, optional, sgd);
      } else if (kind === "number") {
        const integer = props[name]?.type === "integer";
        toolHeads[name] = trainNumberHead(
          samples.map((s) => ({ input: s.input, value: s.value as number | undefined })),
          integer,
          optional,
          sgd,
        );
      } else {
        toolHeads[name] = trainClassHead(samples, sgd);
      }
    }
    heads[tool.name] = toolHeads;
  }

  const factKeys = examples.length
    ? Object.keys(examples[0]!.facts)
        .filter((k) => examples.every((e) => Object.hasOwn(e.facts, k)))
        .sort()
    : [];
  return {
    predictor: {
      features,
      toolHead,
      arguments: heads,
      familiarity: countFamiliarity(inputs.map((i) => i.words)),
    },
    tools,
    factKeys,
  };
}
