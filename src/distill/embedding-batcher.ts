import type { TextEncoder } from "./text-encoder.js";

/**
 * Gathers the texts asked for while the event loop is busy — the items of a `for_each` proposing side by side —
 * and embeds them in one call to the encoder (identical texts once).
 */
export class EmbeddingBatcher {
  readonly #encoder: TextEncoder;
  #pending = new Map<string, { resolve: (v: Float32Array) => void; reject: (e: unknown) => void }[]>();
  #scheduled = false;

  constructor(encoder: TextEncoder) {
    this.#encoder = encoder;
  }

  /** The vector of one text, embedded with the others asked for in the same turn. */
  embed(text: string): Promise<Float32Array> {
    return new Promise((resolve, reject) => {
      const waiting = this.#pending.get(text);
      if (waiting) waiting.push({ resolve, reject });
      else this.#pending.set(text, [{ resolve, reject }]);
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => void this.#flush());
      }
    });
  }

  async #flush(): Promise<void> {
    const batch = this.#pending;
    this.#pending = new Map();
    this.#scheduled = false;
    const texts = [...batch.keys()];
    try {
      const vectors = await this.#encoder.embed(texts);
      texts.forEach((t, i) => batch.get(t)!.forEach((w) => w.resolve(vectors[i]!)));
    } catch (error) {
      for (const waiting of batch.values()) waiting.forEach((w) => w.reject(error));
    }
  }
}
