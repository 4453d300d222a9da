import { TurnBatcher } from "../runtime/turn-batcher.js";
import type { TextEncoder } from "./text-encoder.js";

interface Waiting {
  text: string;
  resolve: (v: Float32Array) => void;
  reject: (e: unknown) => void;
}

/**
 * Gathers the texts asked for while the event loop is busy — the items of a `for_each` proposing side by side —
 * and embeds them in one call to the encoder (identical texts once).
 */
export class EmbeddingBatcher {
  readonly #encoder: TextEncoder;
  readonly #asked = new TurnBatcher<Waiting>((batch) => this.#flush(batch));

  constructor(encoder: TextEncoder) {
    this.#encoder = encoder;
  }

  /** The vector of one text, embedded with the others asked for in the same turn. */
  embed(text: string): Promise<Float32Array> {
    return new Promise((resolve, reject) => this.#asked.add({ text, resolve, reject }));
  }

  async #flush(batch: Waiting[]): Promise<void> {
    const byText = new Map<string, Waiting[]>();
    for (const w of batch) {
      const same = byText.get(w.text);
      if (same) same.push(w);
      else byText.set(w.text, [w]);
    }
    const texts = [...byText.keys()];
    try {
      const vectors = await this.#encoder.embed(texts);
      texts.forEach((t, i) => byText.get(t)!.forEach((w) => w.resolve(vectors[i]!)));
    } catch (error) {
      for (const waiting of byText.values()) waiting.forEach((w) => w.reject(error));
    }
  }
}
