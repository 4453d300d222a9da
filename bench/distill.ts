// Distilled delegate benchmark: proposal latency (p50/p95) and throughput of DistilledDelegate on the alert-triage
// held-out set, beside LocalDelegate (in-process llama.cpp) on the project's tiny random-weight model; training
// time against the number of traces; and the cascade on the example (distilled first, the LLM for what it rejects).
// Run: npm run bench:distill  (builds, then prints tables; nothing here is asserted). Env: LOCAL_PROPOSALS (default
// 30; 0 skips LocalDelegate), SIZES (training set sizes, default 250,500,1000,2000,4000), ROUNDS (default 3).
// With the pretrained encoder (all-MiniLM-L6-v2 from scripts/encoder-model.sh; ENCODER=PATH, ENCODER=0 skips):
// latency sequential and batched over a for_each (BATCH items at once, default 8), and training time against
// the number of traces (ENCODER_SIZES, default 250,1000).
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { readTraces } from "../dist/traces/read-traces.js";
import {
  DistilledDelegate,
  examplesFromTraces,
  trainDistilled,
  type TrainingExample,
} from "../dist/distill/index.js";
import type { ProposeRequest, ToolCallDelegate } from "../dist/delegate/protocol.js";

const ROUNDS = Number(process.env.ROUNDS ?? 3);
const LOCAL_PROPOSALS = Number(process.env.LOCAL_PROPOSALS ?? 30);
const SIZES = (process.env.SIZES ?? "250,500,1000,2000,4000").split(",").map(Number);
const NODE = "triage_items";
const data = (file: string) =>
  fileURLToPath(new URL(`../examples/alert-triage/data/${file}`, import.meta.url));
const examples = (path: string): TrainingExample[] =>
  examplesFromTraces(readTraces(path).traces, NODE).examples;
const dir = mkdtempSync(join(tmpdir(), "deputy-bench-distill-"));

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

async function latency(delegate: ToolCallDelegate, requests: ProposeRequest[], rounds: number) {
  const times: number[] = [];
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let r = 0; r < rounds; r++) {
    for (const request of requests) {
      const t = performance.now();
      await delegate.propose(request);
      times.push(performance.now() - t);
    }
  }
  const total = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  times.sort((a, b) => a - b);
  return {
    proposals: times.length,
    perSecond: times.length / total,
    p50: percentile(times, 0.5),
    p95: percentile(times, 0.95),
    // CPU time of this process per proposal: steadier than wall time on a shared machine.
    cpu: (used.user + used.system) / 1000 / times.length,
  };
}

const fmt = (ms: number) => (ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : `${ms.toFixed(1)} ms`);

// 1. Train on the shipped training set, measure on the held-out set.
const train = examples(data("train.jsonl"));
const heldOut = examples(data("heldout.jsonl"));
const result = trainDistilled(train, { node: NODE, heldOut });
const distilled = new DistilledDelegate({ model: result.model });
const requests: ProposeRequest[] = heldOut.map((e) => ({
  instruction: e.instruction,
  facts: e.facts,
  tools: e.tools,
  context: { runId: "bench", nodeId: NODE },
}));
await latency(distilled, requests, 2); // warm-up
const rows: Record<string, unknown>[] = [];
const d = await latency(distilled, requests, 20);
rows.push({
  backend: "DistilledDelegate",
  proposals: d.proposals,
  "proposals/s": Math.round(d.perSecond),
  p50: fmt(d.p50),
  p95: fmt(d.p95),
  "CPU/proposal": fmt(d.cpu),
});

let local: ToolCallDelegate | undefined;
if (LOCAL_PROPOSALS > 0) {
  try {
    const { writeTinyModel } = await import("../dist/testing/index.js");
    const { LocalDelegate } = await import("../dist/delegate/backends/local-delegate.js");
    const model = join(dir, "tiny.gguf");
    writeTinyModel(model, { seed: 1 });
    local = new LocalDelegate({ model, threads: 1 });
    const some = requests.slice(0, LOCAL_PROPOSALS);
    await local.propose(some[0]!); // load + warm-up
    const l = await latency(local, some, 1);
    rows.push({
      backend: "LocalDelegate (tiny model, 1 thread)",
      proposals: l.proposals,
      "proposals/s": Number(l.perSecond.toFixed(1)),
      p50: fmt(l.p50),
      p95: fmt(l.p95),
      "CPU/proposal": fmt(l.cpu),
    });
  } catch (error) {
    console.warn(`LocalDelegate skipped: ${(error as Error).message}`);
  }
}
console.log("\nProposal latency (alert-triage held-out inputs, sequential)");
console.table(rows);

// 2. The cascade on the example: the distilled model decides what reaches min_confidence, the rest goes on.
// Measured on the held-out half that tuned nothing (the other half chose the threshold).
const min = result.recommendedMinConfidence;
const at = result.heldOutTable.find((t) => t.threshold === min)!;
const pct = (v: number | null) => (v === null ? "–" : `${(v * 100).toFixed(1)}%`);
console.log(
  `\nCascade on ${result.heldOutExamples} held-out alerts worded unlike the training set, min_confidence ${min}:`,
);
console.table([
  { level: "distilled", share: pct(at.coverage), precision: pct(at.precision), latency: `p50 ${fmt(d.p50)}` },
  {
    level: "next backend (LLM) or a person",
    share: pct(1 - at.coverage),
    precision: "(the LLM's)",
    latency: rows[1] ? `p50 ${String(rows[1].p50)} (tiny model)` : "–",
  },
]);
console.log(`distilled exact-match accuracy without a threshold: ${pct(result.heldOutAccuracy)}`);

/** `size` training traces from the example's generator (same phrasings, no styled alerts), in `dir/name`. */
function generatedTraining(name: string, size: number) {
  const out = join(dir, name);
  execFileSync("mkdir", ["-p", out]);
  const args = ["--train", String(size), "--heldout", "0", "--styled", "0", "--out", out];
  execFileSync(process.execPath, [data("generate.mjs"), ...args]);
  return examples(join(out, "train.jsonl"));
}

// 3. Training time against the number of traces (generated by the example's generator, same phrasings).
const timing: Record<string, unknown>[] = [];
for (const size of SIZES) {
  const set = generatedTraining(`n${size}`, size);
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const c = process.cpuUsage();
    const t = performance.now();
    trainDistilled(set, { node: NODE });
    wall.push((performance.now() - t) / 1000);
    const used = process.cpuUsage(c);
    cpu.push((used.user + used.system) / 1e6);
  }
  timing.push({
    traces: set.length,
    "train s (median wall)": wall.sort()[Math.floor(ROUNDS / 2)]!.toFixed(2),
    "train s (median CPU)": cpu.sort()[Math.floor(ROUNDS / 2)]!.toFixed(2),
  });
}
console.log("\nTraining time (4-fold calibration + final fit; 20% held out)");
console.table(timing);

// 4. With the pretrained encoder.
const encoderPath =
  process.env.ENCODER ??
  (() => {
    try {
      return execFileSync("bash", [fileURLToPath(new URL("../scripts/encoder-model.sh", import.meta.url))], {
        encoding: "utf8",
      }).trim();
    } catch {
      return "0";
    }
  })();
if (encoderPath !== "0") {
  const { GgufTextEncoder } = await import("../dist/distill/gguf-text-encoder.js");
  const { trainDistilledWithEncoder } = await import("../dist/distill/train-with-encoder.js");
  const BATCH = Number(process.env.BATCH ?? 8);
  // Each measurement opens its own encoder: an encoder keeps the vectors of texts it embedded recently, and a
  // text seen in training or in an earlier measurement must not make a later one look faster.
  const open = () => GgufTextEncoder.open(encoderPath);
  const trainer = await open();
  // A third of the training set: the heads' quality does not change the cost of a proposal.
  const small = await trainDistilledWithEncoder(
    train.filter((_, i) => i % 3 === 0),
    { node: NODE },
    trainer,
  );
  const info = trainer.info;
  await trainer.close();
  const warmUp = train
    .slice(1, 9)
    .map((e) => ({ ...requests[0]!, instruction: e.instruction, facts: e.facts }));
  const rowsEncoder: Record<string, unknown>[] = [];
  for (const batch of [1, BATCH]) {
    const encoder = await open();
    const withEncoder = new DistilledDelegate({ model: small.model, encoder });
    await Promise.all(warmUp.map((r) => withEncoder.propose(r)));
    // batch 1: one proposal at a time; otherwise as a for_each with max_concurrency BATCH proposes: BATCH items
    // at a time, embedded in one call.
    const cpu = process.cpuUsage();
    const started = performance.now();
    const each: number[] = [];
    for (let i = 0; i < requests.length; i += batch) {
      const t = performance.now();
      await Promise.all(requests.slice(i, i + batch).map((r) => withEncoder.propose(r)));
      const n = Math.min(batch, requests.length - i);
      for (let k = 0; k < n; k++) each.push((performance.now() - t) / n);
    }
    const wall = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    each.sort((a, b) => a - b);
    rowsEncoder.push({
      mode: batch === 1 ? "sequential" : `batched (for_each, ${batch} at once): per proposal`,
      "proposals/s": (requests.length / wall).toFixed(1),
      p50: fmt(percentile(each, 0.5)),
      p95: fmt(percentile(each, 0.95)),
      "CPU/proposal (all threads)": fmt((used.user + used.system) / 1000 / requests.length),
    });
    await withEncoder.close();
    await encoder.close();
  }
  console.log(
    `\nWith the encoder ${info.name} (${info.dimension} dimensions), ${requests.length} held-out alerts`,
  );
  console.table(rowsEncoder);
  // The heads alone, the vectors embedded beforehand: what the n-gram cross-check adds to a proposal.
  {
    const { DistilledPredictor } = await import("../dist/distill/distilled-predictor.js");
    const { encoderText } = await import("../dist/distill/encoder-input.js");
    const encoder = await open();
    const vectors = await encoder.embed(
      requests.map((r) => encoderText(r.instruction, small.model.encoder!.prefix)),
    );
    await encoder.close();
    const heads: Record<string, unknown>[] = [];
    for (const [label, model] of [
      ["with the cross-check", small.model],
      ["without it", { ...small.model, crossCheck: undefined }],
    ] as const) {
      const predictor = new DistilledPredictor(model);
      const cpu = process.cpuUsage();
      const rounds = 20;
      for (let k = 0; k < rounds; k++)
        requests.forEach((r, i) => predictor.predict(predictor.prepare(r.instruction, r.facts, vectors[i])));
      const used = process.cpuUsage(cpu);
      heads.push({
        heads: label,
        "CPU/proposal": fmt((used.user + used.system) / 1000 / (rounds * requests.length)),
      });
    }
    console.log("\nThe heads alone (features, heads, calibrator; the embedding excluded)");
    console.table(heads);
  }
  const encoderTiming: Record<string, unknown>[] = [];
  for (const size of (process.env.ENCODER_SIZES ?? "250,1000").split(",").map(Number)) {
    const set = generatedTraining(`e${size}`, size);
    const encoder = await open();
    const c = process.cpuUsage();
    const t = performance.now();
    const r = await trainDistilledWithEncoder(set, { node: NODE }, encoder);
    const u = process.cpuUsage(c);
    await encoder.close();
    encoderTiming.push({
      traces: set.length,
      "texts embedded": r.times.texts,
      "embed s (wall)": r.times.embedSeconds.toFixed(1),
      "fit s (wall)": r.times.fitSeconds.toFixed(1),
      "total s (wall)": ((performance.now() - t) / 1000).toFixed(1),
      "process CPU s (all threads)": ((u.user + u.system) / 1e6).toFixed(1),
    });
  }
  console.log(
    "\nTraining time with the encoder (embedding every instruction and out-of-domain variant once, then fitting)",
  );
  console.table(encoderTiming);
}

await distilled.close();
await local?.close();
rmSync(dir, { recursive: true, force: true });
