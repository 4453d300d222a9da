/**
 * The alert-triage example on a real model: proposes a call for each alert of the second half of the held-out
 * set (the traffic examples/cascade/run.ts serves; the first half tunes the distilled model's threshold) with the
 * distilled delegate and with a real model, and appends one JSON line per (backend, alert) to `--out`
 * (resumable). `bench/triage-report.ts` turns them into docs/quality.md's table and cascade.
 *
 *   node --import tsx bench/triage-run.ts --model FILE.gguf --out triage.jsonl [--limit 40]
 */
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { LocalDelegate } from "../src/delegate/backends/local-delegate.js";
import { DistilledDelegate, examplesFromTraces, trainDistilled } from "../src/distill/index.js";
import { readTraces } from "../src/traces/read-traces.js";
import type { ToolCallDelegate } from "../src/delegate/protocol.js";
import { canonicalJson } from "../src/runtime/canonical-json.js";

const { values } = parseArgs({
  options: {
    model: { type: "string" },
    out: { type: "string" },
    limit: { type: "string", default: "75" },
  },
});
if (!values.model || !values.out) {
  console.error("usage: triage-run.ts --model FILE.gguf --out FILE [--limit N]");
  process.exit(2);
}
const out = values.out;
const data = new URL("../examples/alert-triage/data/", import.meta.url);
const heldOut = readTraces(new URL("heldout.jsonl", data).pathname).traces;
const tuning = heldOut.slice(0, heldOut.length / 2);
const traffic = heldOut.slice(heldOut.length / 2).slice(0, Number(values.limit));
const train = examplesFromTraces(readTraces(new URL("train.jsonl", data).pathname).traces, "triage_items");
const trained = trainDistilled(train.examples, {
  node: "triage_items",
  heldOut: examplesFromTraces(tuning, "triage_items").examples,
});
const done = new Set(
  existsSync(out)
    ? readFileSync(out, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => {
          const r = JSON.parse(l) as { backend: string; item: number };
          return `${r.backend}:${r.item}`;
        })
    : [],
);
const delegates: ToolCallDelegate[] = [
  new DistilledDelegate({ model: trained.model, name: "distilled" }),
  new LocalDelegate({ model: values.model, name: "qwen", threads: 1, seed: 1, tokenProbability: true }),
];
try {
  for (const delegate of delegates) {
    for (const t of traffic) {
      if (done.has(`${delegate.name}:${t.item}`)) continue;
      const started = performance.now();
      const p = await delegate.propose({ instruction: t.instruction, facts: t.facts, tools: t.tools });
      const record = {
        backend: delegate.name,
        item: t.item,
        name: p.name,
        arguments: p.arguments,
        confidence: p.confidence,
        meanTokenProbability: p.meanTokenProbability,
        correct:
          p.name !== null &&
          canonicalJson({ name: p.name, arguments: p.arguments }) === canonicalJson(t.finalCall),
        expected: t.finalCall?.name ?? null,
        latencyMs: performance.now() - started,
        distilledMinConfidence: trained.recommendedMinConfidence,
      };
      appendFileSync(out, JSON.stringify(record) + "\n");
      console.error(`${delegate.name}\t${t.item}\t${record.correct}\t${record.latencyMs.toFixed(0)} ms`);
    }
  }
} finally {
  for (const d of delegates) await d.close();
}
