/**
 * A self-check score for proposed calls (issue 23, items 2-3): the same model is asked, in a second short
 * prompt, whether the call it proposed does what the question asks — the question, the chosen tool's name and
 * description, and the call's arguments — and answers yes or no. The score is P(yes) / (P(yes) + P(no)) at the
 * first answer token (raw distribution, top 40). One JSON line per proposed call of the records file, resumable.
 *
 *   node --import tsx bench/quality-selfcheck.ts --model FILE.gguf --records shared.jsonl --out selfcheck.jsonl \
 *     [--half fit|report|all] [--shard K/N] [--suite test/fixtures/bfcl]
 *
 * The halves are those of the protocols (FNV-1a of the case id: even = fit, odd = report). The prompt is
 * LocalDelegate's own (`selfCheck`, local-self-check.ts); on BFCL's tasks (no facts, descriptions of at most
 * 420 characters) it is the text the protocol fixed, before the library bounded descriptions at 1000.
 */
import { appendFileSync, readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { bfclCases, loadBfclSuite } from "../src/eval/bfcl-suite.js";
import { bfclQuestion } from "../src/eval/bfcl.js";
import { fitHalf, recordedIds } from "./quality-cases.js";
import { selfCheckPrompt, selfCheckScore } from "../src/delegate/backends/local-self-check.js";

const { values } = parseArgs({
  options: {
    model: { type: "string" },
    records: { type: "string" },
    out: { type: "string" },
    half: { type: "string", default: "all" },
    shard: { type: "string", default: "0/1" },
    suite: { type: "string", default: "test/fixtures/bfcl" },
    threads: { type: "string", default: "1" },
  },
});
if (!values.model || !values.records || !values.out) {
  console.error("usage: quality-selfcheck.ts --model FILE --records FILE --out FILE");
  process.exit(2);
}

interface Row {
  id: string;
  outcome: string;
  name?: string | null;
  arguments?: Record<string, unknown>;
}
const records = readFileSync(values.records, "utf8")
  .split("\n")
  .filter(Boolean)
  .map((l) => JSON.parse(l) as Row)
  .filter((r) => r.outcome === "proposed" && typeof r.name === "string");
const done = recordedIds(values.out);
const [shard, shards] = values.shard!.split("/").map(Number) as [number, number];
const wanted = records.filter((r, i) => {
  const fit = fitHalf(r.id);
  const inHalf = values.half === "all" || (values.half === "fit") === fit;
  return inHalf && i % shards === shard && !done.has(r.id);
});
const cases = new Map(
  bfclCases(loadBfclSuite(values.suite!, { limit: 1000 })).map((c) => [c.sample.id, c] as const),
);

const { getLlama, resolveChatWrapper } = await import("node-llama-cpp");
const llama = await getLlama({ gpu: false });
const model = await llama.loadModel({ modelPath: values.model });
const context = await model.createContext({ contextSize: 4096, threads: Number(values.threads) });
const sequence = context.getSequence();
const wrapper = resolveChatWrapper(model);
for (const r of wanted) {
  const c = cases.get(r.id);
  if (!c) continue;
  const fn = c.sample.function.find((f) => f.name === r.name);
  const started = performance.now();
  const prompt = selfCheckPrompt(
    bfclQuestion(c.sample),
    { name: r.name!, description: fn?.description },
    r.arguments,
  );
  // The library's own reading, as LocalDelegate's `selfCheck` makes it.
  const selfCheck = await selfCheckScore(model, wrapper, sequence, prompt);
  const line = { id: r.id, selfCheck, ms: performance.now() - started };
  appendFileSync(values.out, JSON.stringify(line) + "\n");
  console.error(`${r.id}\t${selfCheck.toFixed(3)}\t${line.ms.toFixed(0)} ms`);
}
await context.dispose();
await model.dispose();
