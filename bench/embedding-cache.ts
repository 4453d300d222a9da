// A text encoder whose vectors are kept on disk, keyed by the model file's sha256 and the text: a benchmark that
// embeds thousands of texts with a real model (minutes) embeds each once across runs. One JSON line per text in
// $DEPUTY_CACHE/embeddings/<sha256>.jsonl (default ~/.cache/deputy); a progress line on stderr while embedding.
import { appendFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { TextEncoder } from "../src/distill/text-encoder.js";

const CHUNK = 16;

/** `real`, with every vector it makes kept in (and read back from) the cache file of its model. */
export function diskCached(real: TextEncoder): TextEncoder & { readonly cacheFile: string } {
  const dir = join(process.env.DEPUTY_CACHE ?? join(homedir(), ".cache", "deputy"), "embeddings");
  mkdirSync(dir, { recursive: true });
  const cacheFile = join(dir, `${real.info.sha256}.jsonl`);
  const memo = new Map<string, Float32Array>();
  if (existsSync(cacheFile))
    for (const line of readFileSync(cacheFile, "utf8").split("\n")) {
      if (!line) continue;
      try {
        const { t, v } = JSON.parse(line) as { t: string; v: string };
        const bytes = Buffer.from(v, "base64");
        const vector = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4).slice();
        if (vector.length === real.info.dimension) memo.set(t, vector);
      } catch {
        // a line cut short by a killed run: embedded again
      }
    }
  return {
    info: real.info,
    cacheFile,
    async embed(texts) {
      const missing = [...new Set(texts.filter((t) => !memo.has(t)))];
      const started = performance.now();
      for (let i = 0; i < missing.length; i += CHUNK) {
        const chunk = missing.slice(i, i + CHUNK);
        const vectors = await real.embed(chunk);
        chunk.forEach((t, j) => {
          memo.set(t, vectors[j]!);
          const v = Buffer.from(vectors[j]!.buffer, vectors[j]!.byteOffset, vectors[j]!.byteLength);
          appendFileSync(cacheFile, JSON.stringify({ t, v: v.toString("base64") }) + "\n");
        });
        const done = Math.min(i + CHUNK, missing.length);
        const per = (performance.now() - started) / 1000 / done;
        process.stderr.write(
          `\r${real.info.name}: embedded ${done}/${missing.length} (${per.toFixed(2)} s per text, ${Math.round(per * (missing.length - done))} s left)   `,
        );
      }
      if (missing.length) process.stderr.write("\n");
      return texts.map((t) => memo.get(t)!);
    },
    close: () => real.close(),
  };
}
