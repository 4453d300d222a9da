// The alert-triage example's labelled sets, as the distill benchmarks read them (one reader for all of them).
import { fileURLToPath } from "node:url";
import { readTraces } from "../dist/delegate/read-traces.js";
import { examplesFromTraces, type TrainingExample } from "../dist/delegate/distilled/index.js";

/** The repository root. */
export const root = fileURLToPath(new URL("..", import.meta.url));

/** The `triage_items` examples of `examples/alert-triage/data/NAME.jsonl` (or of `DIR/NAME.jsonl`). */
export function loadAlertExamples(
  name: string,
  dir = `${root}examples/alert-triage/data`,
): TrainingExample[] {
  return examplesFromTraces(readTraces(`${dir}/${name}.jsonl`).traces, "triage_items").examples;
}
