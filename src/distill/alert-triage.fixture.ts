import { fileURLToPath } from "node:url";
import { readTraces } from "../traces/read-traces.js";
import type { ToolSpec } from "../delegate/protocol.js";
import { trainDistilled, type TrainDistilledResult } from "./train-distilled.js";
import { examplesFromTraces, type TrainingExample } from "./training-examples.js";

/** @internal The example's data files (tests and the benchmark train on them). */
export const ALERT_TRIAGE_DATA = {
  train: fileURLToPath(new URL("../../examples/alert-triage/data/train.jsonl", import.meta.url)),
  heldOut: fileURLToPath(new URL("../../examples/alert-triage/data/heldout.jsonl", import.meta.url)),
  styled: fileURLToPath(new URL("../../examples/alert-triage/data/styled.jsonl", import.meta.url)),
  sources: fileURLToPath(new URL("../../examples/alert-triage/data/sources.jsonl", import.meta.url)),
  escalations: fileURLToPath(new URL("../../examples/alert-triage/data/escalations.jsonl", import.meta.url)),
  handwritten: fileURLToPath(new URL("../../examples/alert-triage/data/handwritten.jsonl", import.meta.url)),
  development: fileURLToPath(new URL("../../examples/alert-triage/data/development.jsonl", import.meta.url)),
  holdout2: fileURLToPath(new URL("../../examples/alert-triage/data/holdout2.jsonl", import.meta.url)),
  holdout3: fileURLToPath(new URL("../../examples/alert-triage/data/holdout3.jsonl", import.meta.url)),
  holdout4: fileURLToPath(new URL("../../examples/alert-triage/data/holdout4.jsonl", import.meta.url)),
  holdout5: fileURLToPath(new URL("../../examples/alert-triage/data/holdout5.jsonl", import.meta.url)),
  holdout6: fileURLToPath(new URL("../../examples/alert-triage/data/holdout6.jsonl", import.meta.url)),
  holdout7: fileURLToPath(new URL("../../examples/alert-triage/data/holdout7.jsonl", import.meta.url)),
  holdout8: fileURLToPath(new URL("../../examples/alert-triage/data/holdout8.jsonl", import.meta.url)),
  holdout9: fileURLToPath(new URL("../../examples/alert-triage/data/holdout9.jsonl", import.meta.url)),
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
