// The alert-triage example's labelled sets, as the distill benchmarks read them (one reader for all of them).
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { readTraces } from "../dist/traces/read-traces.js";
import { examplesFromTraces, type TrainingExample } from "../dist/distill/index.js";
import type { TextEncoder } from "../dist/distill/text-encoder.js";

/** The repository root. */
export const root = fileURLToPath(new URL("..", import.meta.url));

/** The `triage_items` examples of `examples/alert-triage/data/NAME.jsonl` (or of `DIR/NAME.jsonl`). */
export function loadAlertExamples(
  name: string,
  dir = `${root}examples/alert-triage/data`,
): TrainingExample[] {
  return examplesFromTraces(readTraces(`${dir}/${name}.jsonl`).traces, "triage_items").examples;
}

/** The GGUF sentence encoder to use: `ENCODER`, else what scripts/encoder-model.sh prints (fetching it once). */
export function encoderModelPath(): string {
  return (
    process.env.ENCODER ??
    execFileSync("bash", [`${root}scripts/encoder-model.sh`], { encoding: "utf8" }).trim()
  );
}

/**
 * `real` embedding each text once: the same texts recur at every training step of a benchmark. Closing it
 * leaves `real` open (the benchmark closes it). Without `real` (a benchmark that only redraws), embedding fails.
 */
export function memoized(real: TextEncoder | undefined): TextEncoder {
  const memo = new Map<string, Float32Array>();
  return {
    info: real?.info ?? { kind: "gguf", name: "none", sha256: "", dimension: 0 },
    async embed(texts) {
      const missing = [...new Set(texts.filter((t) => !memo.has(t)))];
      if (missing.length) (await real!.embed(missing)).forEach((v, i) => memo.set(missing[i]!, v));
      return texts.map((t) => memo.get(t)!);
    },
    // A tuned reader's head reads the raw vectors: passed through, not memoized (they are asked for at measuring).
    ...(real?.embedRaw && { embedRaw: (texts: readonly string[]) => real.embedRaw!(texts) }),
    close: async () => {},
  };
}
