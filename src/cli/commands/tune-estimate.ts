import {
  tuneReader,
  type TunedReader,
  type TuneEstimate,
  type TuneReaderOptions,
} from "../../distill/tune-reader.js";
import type { CliContext } from "../cli-context.js";
import { EXIT } from "../exit-codes.js";
import { createProgressBar, formatDuration } from "../progress.js";

/** The estimate as one line: how many texts and steps, about how long, and what it was timed on. */
export function tuneEstimateLine(e: TuneEstimate, verb = ""): string {
  return `tuning the reader on ${e.examples} decision(s) and trace(s), ${e.labels} labels, ${e.steps} steps${verb}: about ${formatDuration(e.seconds)} (${e.secondsPerStep.toFixed(1)} s a step, timed on the first ${e.timed})`;
}

/** What `--json` reports of a tuned reader. */
export function tunedJson(t: TunedReader, kept: boolean) {
  return {
    path: kept || t.existed ? t.path : null,
    sha256: t.sha256,
    examples: t.examples,
    labels: t.labels,
    steps: t.steps,
    seconds: Number(t.seconds.toFixed(1)),
    kept,
  };
}

/** Thrown from the estimate to stop tuning; never leaves {@link tuneWithEstimate}. */
class OverTime extends Error {}

/**
 * Tunes a reader ({@link tuneReader}) with the estimate printed once the first steps are timed (stdout, unless
 * `json`) and a progress bar on a terminal. Over `maxMinutes` it stops there: one line on stderr, exit code 2, and
 * undefined (the command returns; the trainer is killed and nothing is written).
 */
export async function tuneWithEstimate(
  ctx: CliContext,
  options: Omit<TuneReaderOptions, "onEstimate" | "onStep"> & {
    maxMinutes: number | undefined;
    json?: boolean;
  },
): Promise<TunedReader | undefined> {
  const { maxMinutes, json, ...tune } = options;
  const bar = ctx.isTTY ? createProgressBar(ctx.rawStderr, "tuning") : undefined;
  try {
    return await tuneReader({
      ...tune,
      onEstimate(estimate) {
        if (maxMinutes !== undefined && estimate.seconds > maxMinutes * 60) {
          ctx.stderr(
            `deputy: ${tuneEstimateLine(estimate, " would take longer than --max-minutes " + maxMinutes)}; nothing was written\n`,
          );
          throw new OverTime();
        }
        if (!json) ctx.stdout(tuneEstimateLine(estimate) + "\n");
      },
      ...(bar ? { onStep: (step: number, steps: number) => bar.update(step, steps) } : {}),
    });
  } catch (error) {
    if (!(error instanceof OverTime)) throw error;
    ctx.setExitCode(EXIT.invalid);
    return undefined;
  } finally {
    bar?.done();
  }
}
