import type { TextEncoder } from "./text-encoder.js";

/** How long embedding a list of texts will take, extrapolated from the first few (see {@link embedAhead}). */
export interface EmbeddingEstimate {
  /** Distinct texts to embed. */
  texts: number;
  /** Texts embedded first to warm the model up (its first use costs more), not timed per text. */
  warmUp: number;
  /** Texts timed after those. */
  sampled: number;
  /** Seconds per text on that sample. */
  secondsPerText: number;
  /** Estimated seconds for all `texts`: those spent so far, and `secondsPerText` for each left. */
  seconds: number;
}

/** Options of {@link embedAhead}. */
export interface EmbedAheadOptions {
  /** Texts embedded first, untimed: the model's first use costs more than the rest. Default 2. */
  warmUp?: number;
  /** Texts timed after those, for the estimate. Default 8. */
  sample?: number;
  /** Texts per later call to the encoder; progress is reported after each. Default 16. */
  batch?: number;
  /**
   * Called once with the estimate, after the sample and before the rest: a caller prints it, and throws to stop
   * (nothing more is embedded).
   */
  onEstimate?: (estimate: EmbeddingEstimate) => void;
  /** Called after the sample and after each batch: texts embedded so far, of all. */
  onProgress?: (done: number, total: number) => void;
}

/** What {@link embedAhead} returns. */
export interface EmbeddedAhead {
  /**
   * The encoder with every text's vector kept: a text embedded ahead is served from memory, any other embedded
   * by the encoder (and kept). Closing it closes nothing: the caller closes the encoder it opened.
   */
  encoder: TextEncoder;
  estimate: EmbeddingEstimate;
  /** Seconds all texts took. */
  seconds: number;
}

/**
 * Embeds a known list of texts before the work that needs them, so that its time is stated and bounded first:
 * after `warmUp` texts, the next `sample` are timed, the time of all is extrapolated and handed to `onEstimate` (which may stop
 * it), then the rest is embedded in batches with progress. Training with an encoder embeds every text of its
 * plan (`encoderTrainingTexts`); learning trains several models on overlapping texts: each is embedded once here.
 */
export async function embedAhead(
  encoder: TextEncoder,
  texts: readonly string[],
  options: EmbedAheadOptions = {},
): Promise<EmbeddedAhead> {
  const warmUp = Math.max(0, Math.floor(options.warmUp ?? 2));
  const sample = Math.max(1, Math.floor(options.sample ?? 8));
  const batch = Math.max(1, Math.floor(options.batch ?? 16));
  const list = [...new Set(texts)];
  const kept = new Map<string, Float32Array>();
  const embed = async (chunk: string[]) => {
    const vectors = await encoder.embed(chunk);
    chunk.forEach((t, i) => kept.set(t, vectors[i]!));
  };
  const started = performance.now();
  const warm = list.slice(0, warmUp);
  if (warm.length) await embed(warm);
  const timed = list.slice(warm.length, warm.length + sample);
  const sampleStarted = performance.now();
  if (timed.length) await embed(timed);
  const now = performance.now();
  const done = warm.length + timed.length;
  // Too few texts to time any after the warm-up: the warm-up's pace (on the high side).
  const secondsPerText = timed.length
    ? (now - sampleStarted) / 1000 / timed.length
    : done
      ? (now - started) / 1000 / done
      : 0;
  const estimate: EmbeddingEstimate = {
    texts: list.length,
    warmUp: warm.length,
    sampled: timed.length,
    secondsPerText,
    seconds: done ? (now - started) / 1000 + secondsPerText * (list.length - done) : 0,
  };
  options.onEstimate?.(estimate);
  options.onProgress?.(done, list.length);
  for (let i = done; i < list.length; i += batch) {
    await embed(list.slice(i, i + batch));
    options.onProgress?.(Math.min(i + batch, list.length), list.length);
  }
  const seconds = (performance.now() - started) / 1000;
  const memo: TextEncoder = {
    info: encoder.info,
    async embed(asked) {
      const missing = [...new Set(asked.filter((t) => !kept.has(t)))];
      if (missing.length) await embed(missing);
      return asked.map((t) => kept.get(t)!);
    },
    // A tuned reader's head reads the raw vectors (asked for at measuring, not kept): straight from the encoder.
    ...(encoder.embedRaw && { embedRaw: (texts: readonly string[]) => encoder.embedRaw!(texts) }),
    close: () => Promise.resolve(),
  };
  return { encoder: memo, estimate, seconds };
}
