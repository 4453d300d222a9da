import { fileURLToPath } from "node:url";
import { readTraces } from "../traces/read-traces.js";
import type { ToolSpec } from "../delegate/protocol.js";
import { trainDistilled, type TrainDistilledResult } from "./train-distilled.js";
import { examplesFromTraces, type TrainingExample } from "./training-examples.js";

const dataFile = (name: string) =>
  fileURLToPath(new URL(`../../examples/alert-triage/data/${name}.jsonl`, import.meta.url));

/** @internal The example's data files (tests and the benchmark train on them). */
export const ALERT_TRIAGE_DATA = {
  train: dataFile("train"),
  heldOut: dataFile("heldout"),
  styled: dataFile("styled"),
  sources: dataFile("sources"),
  notices: dataFile("notices"),
  escalations: dataFile("escalations"),
  handwritten: dataFile("handwritten"),
  development: dataFile("development"),
  holdout2: dataFile("holdout2"),
  holdout3: dataFile("holdout3"),
  holdout4: dataFile("holdout4"),
  holdout5: dataFile("holdout5"),
  holdout6: dataFile("holdout6"),
  holdout7: dataFile("holdout7"),
  holdout8: dataFile("holdout8"),
  holdout9: dataFile("holdout9"),
  holdout10: dataFile("holdout10"),
  holdout11: dataFile("holdout11"),
  holdout12: dataFile("holdout12"),
  holdout13: dataFile("holdout13"),
};

/**
 * @internal The sets people typed by hand and that are rendered to JSONL (a sealed set is not: nothing reads it
 * before its protocol is committed), in the order they were written.
 */
export const HAND_WRITTEN_SETS = [
  "handwritten",
  "escalations",
  "development",
  "holdout2",
  "holdout3",
  "holdout4",
  "holdout5",
  "holdout6",
  "holdout7",
  "holdout8",
  "holdout9",
  "holdout10",
  "holdout11",
  "holdout12",
  "holdout13",
] as const;

/** @internal The node the example's traces belong to. */
export const ALERT_TRIAGE_NODE = "triage_items";

/** @internal Labelled examples of one of the example's data files. */
export function alertTriageExamples(which: keyof typeof ALERT_TRIAGE_DATA): TrainingExample[] {
  return examplesFromTraces(readTraces(ALERT_TRIAGE_DATA[which]).traces, ALERT_TRIAGE_NODE).examples;
}

let trained: TrainDistilledResult | undefined;

/** @internal The example's model, trained once per process on the training set and measured on the held-out set. */
export function alertTriageModel(): TrainDistilledResult {
  trained ??= trainDistilled(alertTriageExamples("train"), {
    node: ALERT_TRIAGE_NODE,
    heldOut: alertTriageExamples("heldOut"),
  });
  return trained;
}

/** @internal The candidate tools of the example's delegate node, as its traces recorded them. */
export function alertTriageTools(): ToolSpec[] {
  return alertTriageExamples("heldOut")[0]!.tools;
}
