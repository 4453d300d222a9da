import { numberOption } from "../number-option.js";
import { embedAhead, type EmbeddedAhead, type EmbeddingEstimate } from "../../distill/embed-ahead.js";
import type { TextEncoder } from "../../distill/text-encoder.js";
import type { CliContext } from "../cli-context.js";
import { EXIT } from "../exit-codes.js";
import { createProgressBar, formatDuration } from "../progress.js";

/** `--max-minutes M`: a positive number of minutes, or undefined when not given. */
export function parseMaxMinutes(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  return numberOption("--max-minutes", raw, (n) => n > 0, "a positive number of minutes");
}

/** The estimate as one line: how many texts, about how long, and what it was measured on. */
export function estimateLine(name: string, e: EmbeddingEstimate, verb = ""): string {
  return `embedding ${e.texts} text(s) with ${name}${verb}: about ${formatDuration(e.seconds)} (${e.secondsPerText.toFixed(3)} s a text, timed on ${e.sampled} after ${e.warmUp} to warm up)`;
}

/** The estimate and the time it took, as `--json` reports them. */
export function embeddingJson(ahead: EmbeddedAhead) {
  return {
    texts: ahead.estimate.texts,
    secondsPerText: Number(ahead.estimate.secondsPerText.toFixed(4)),
    estimatedSeconds: Number(ahead.estimate.seconds.toFixed(1)),
    seconds: Number(ahead.seconds.toFixed(1)),
  };
}

/** Thrown from the estimate to stop embedding; never leaves {@link embedWithEstimate}. */
class OverTime extends Error {}

/**
 * Embeds every text a command's training and measuring will ask for, before that work starts: times the first
 * batch and prints the estimate (stdout, unless `json`: then it is only in the report). When the estimate is over
 * `maxMinutes` it stops there: one line on stderr, exit code 2, and undefined (the command returns, writing
 * nothing). On a terminal a progress bar shows the time left. The returned encoder serves those texts from memory.
 */
export async function embedWithEstimate(
  ctx: CliContext,
  encoder: TextEncoder,
  texts: readonly string[],
  options: { maxMinutes: number | undefined; json?: boolean },
): Promise<EmbeddedAhead | undefined> {
  const bar = ctx.isTTY ? createProgressBar(ctx.rawStderr, "embedding") : undefined;
  try {
    return await embedAhead(encoder, texts, {
      onEstimate(estimate) {
        if (options.maxMinutes !== undefined && estimate.seconds > options.maxMinutes * 60) {
          ctx.stderr(
            `deputy: ${estimateLine(encoder.info.name, estimate, " would take longer than --max-minutes " + options.maxMinutes)}; nothing was written\n`,
          );
          throw new OverTime();
        }
        if (!options.json) ctx.stdout(estimateLine(encoder.info.name, estimate) + "\n");
      },
      ...(bar ? { onProgress: (done: number, total: number) => bar.update(done, total) } : {}),
    });
  } catch (error) {
    if (!(error instanceof OverTime)) throw error;
    ctx.setExitCode(EXIT.invalid);
    return undefined;
  } finally {
    bar?.done();
  }
}
