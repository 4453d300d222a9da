// embedAhead on a real (tiny, random-weight) GGUF: every text embedded once, in order of the estimate first; a
// refusal at the estimate embeds nothing more; the returned encoder serves what was embedded ahead from memory.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { writeTinyModel } from "../testing/index.js";
import { embedAhead } from "./embed-ahead.js";
import { GgufTextEncoder } from "./gguf-text-encoder.js";
import type { TextEncoder } from "./text-encoder.js";

const tiny = join(mkdtempSync(join(tmpdir(), "deputy-embed-ahead-")), "tiny.gguf");
writeTinyModel(tiny, { seed: 1 });
const real = await GgufTextEncoder.open(tiny);
afterAll(() => real.close());

/** The real encoder, with every text it was asked to embed written down. */
function counting(): TextEncoder & { asked: string[] } {
  const asked: string[] = [];
  return {
    info: real.info,
    asked,
    embed: (t) => (asked.push(...t), real.embed(t)),
    close: () => Promise.resolve(),
  };
}

const texts = Array.from({ length: 30 }, (_, i) => `alert ${i % 25}: disk full on host-${i % 25}`);

describe("embedAhead", () => {
  it("estimates after the warm-up and sample, then embeds each distinct text once, with progress", async () => {
    const encoder = counting();
    const events: string[] = [];
    const ahead = await embedAhead(encoder, texts, {
      batch: 4,
      onEstimate: (e) => events.push(`estimate ${e.texts} ${e.warmUp} ${e.sampled}`),
      onProgress: (done, total) => events.push(`${done}/${total}`),
    });
    expect(events[0]).toBe("estimate 25 2 8");
    expect(events[1]).toBe("10/25");
    expect(events.at(-1)).toBe("25/25");
    expect(ahead.estimate.seconds).toBeGreaterThan(0);
    expect(encoder.asked.slice().sort()).toEqual([...new Set(texts)].sort());
    // Served from memory: the same vectors as the encoder's, nothing asked of it again.
    const vectors = await ahead.encoder.embed(texts.slice(0, 5));
    expect(encoder.asked).toHaveLength(25);
    expect([...vectors[3]!]).toEqual([...(await real.embed([texts[3]!]))[0]!]);
    // A text not embedded ahead is embedded then (and kept).
    await ahead.encoder.embed(["something new"]);
    await ahead.encoder.embed(["something new"]);
    expect(encoder.asked.filter((t) => t === "something new")).toHaveLength(1);
  });

  it("stops at the estimate when onEstimate throws: nothing past the sample is embedded", async () => {
    const encoder = counting();
    const over = new Error("over the bound");
    await expect(
      embedAhead(encoder, texts, {
        onEstimate: () => {
          throw over;
        },
      }),
    ).rejects.toBe(over);
    expect(encoder.asked).toHaveLength(10);
  });

  it("handles fewer texts than the warm-up, and none", async () => {
    const one = await embedAhead(counting(), ["only"]);
    expect(one.estimate).toMatchObject({ texts: 1, warmUp: 1, sampled: 0 });
    const none = await embedAhead(counting(), []);
    expect(none.estimate).toMatchObject({ texts: 0, seconds: 0 });
  });
});
