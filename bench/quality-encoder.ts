/**
 * The relevance step's scores on BFCL (src/delegate/relevance.ts: the task against each candidate tool's name and
 * description in all-MiniLM-L6-v2's space, the nearest tool's cosine), one JSON line per case to `--out`
 * (resumable), with the time the step took. Model-independent; `bench/quality-decline.ts --relevance FILE`
 * reads it beside each model's records.
 *
 *   node --import tsx bench/quality-encoder.ts --out encoder.jsonl [--encoder FILE.gguf] [--limit 1000]
 */
import { appendFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { relevanceOf } from "../src/delegate/relevance.js";
import { defaultEncoderModelPath } from "../src/distill/encoder-model-path.js";
import { GgufTextEncoder } from "../src/distill/gguf-text-encoder.js";
import { bfclQuestion, bfclToToolSpec } from "../src/eval/bfcl.js";
import { bfclCases, loadBfclSuite } from "../src/eval/bfcl-suite.js";
import { interleave, recordedIds } from "./quality-cases.js";

const { values } = parseArgs({
  options: {
    out: { type: "string" },
    encoder: { type: "string" },
    suite: { type: "string", default: "test/fixtures/bfcl" },
    limit: { type: "string", default: "1000" },
  },
});
if (!values.out) {
  console.error("usage: quality-encoder.ts --out FILE [--encoder FILE.gguf] [--limit N]");
  process.exit(2);
}
const out = values.out;
const done = recordedIds(out);
const cases = interleave(bfclCases(loadBfclSuite(values.suite!, { limit: Number(values.limit) }))).filter(
  (c) => !done.has(c.sample.id),
);
// One context: what RelevanceDelegate opens (relevance=encoder:… in a spec).
const encoder = await GgufTextEncoder.open(values.encoder ?? defaultEncoderModelPath(), { contexts: 1 });
try {
  for (const c of cases) {
    const tools = c.sample.function.map(bfclToToolSpec);
    const started = performance.now();
    const { score, tool } = await relevanceOf(encoder, bfclQuestion(c.sample), {}, tools);
    // Again: the tools' vectors are now the encoder's, so this is the cost once a tool set has been seen.
    const again = performance.now();
    await relevanceOf(encoder, `${bfclQuestion(c.sample)} `, {}, tools);
    const record = {
      id: c.sample.id,
      category: c.category,
      tools: tools.length,
      score,
      tool,
      firstMs: again - started,
      cachedToolsMs: performance.now() - again,
    };
    appendFileSync(out, JSON.stringify(record) + "\n");
  }
} finally {
  await encoder.close();
}
