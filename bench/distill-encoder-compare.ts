// The real model's own hidden states as the distilled delegate's encoder, against all-MiniLM-L6-v2: the same
// training (generated traces, GENERATED=train by default, plus the first k people's decisions, which choose the
// threshold out of fold once there are 20), the same heads, only the encoder differs. A decoder model (pooling
// "last") embeds the rendered task (facts, instruction, "Action:"); MiniLM embeds the instruction, as it ships.
// Measured on development sets only (SETS, default holdout5 and holdout2) after 90 and 0 decisions
// (escalations.jsonl); STEPS=90,0,826 adds holdout5 after all 826 development decisions. Per set: coverage and
// precision at the recommended min_confidence (target 97 %), exact-call accuracy, and the best coverage any
// threshold reaches at ≥ 97 % on that set (an oracle, for comparing encoders, not a figure a user gets). Vectors
// are cached on disk (bench/embedding-cache.ts), so a rerun embeds nothing it embedded before. Never reads holdout6.
// Run: npm run bench:distill-encoder  (ENCODERS=minilm,qwen2.5-coder-0.5b-instruct or
// NAME=PATH,…; ENCODER_INPUT=instruction|task; GENERATED=train[,styled]; VARIANTS=64 (out-of-domain variants from that many training examples,
// one embedding each; deputy distill uses 256); TARGET=0.97; OUT=bench/results/distill-encoder-compare.json).
// The defaults keep a decoder's run near half an hour on two busy cores.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { diskCached } from "./embedding-cache.js";
import { GgufTextEncoder } from "../src/distill/gguf-text-encoder.js";
import { measureModel, type Measurement } from "../src/distill/measure-model.js";
import { trainDistilledWithEncoder } from "../src/distill/train-with-encoder.js";
import { examplesFromTraces, type TrainingExample } from "../src/distill/training-examples.js";
import { readTraces } from "../src/traces/read-traces.js";

// Read from src (bench/alert-data.ts reads dist): no build needed before a run of many minutes.
const root = fileURLToPath(new URL("..", import.meta.url));
const loadAlertExamples = (name: string) =>
  examplesFromTraces(readTraces(`${root}examples/alert-triage/data/${name}.jsonl`).traces, "triage_items")
    .examples;

const TARGET = Number(process.env.TARGET ?? 0.97);
const OUT = process.env.OUT ?? `${root}bench/results/distill-encoder-compare.json`;
const generatedName = process.env.GENERATED ?? "train";
// ENCODER_INPUT=instruction|task: what every encoder embeds (default: the rendered task for a decoder only).
const INPUT = process.env.ENCODER_INPUT as "instruction" | "task" | undefined;
const key = (r: { encoder: string; input: string; generated: string; added: number; set: string }) =>
  `${r.encoder}\0${r.input}\0${r.generated}\0${r.added}\0${r.set}`;
const pathOf = (name: string) =>
  name === "minilm"
    ? execFileSync("bash", [`${root}scripts/encoder-model.sh`], { encoding: "utf8" }).trim()
    : execFileSync("bash", [`${root}scripts/models.sh`, name], { encoding: "utf8" }).trim();
const encoders = (process.env.ENCODERS ?? "minilm,qwen2.5-coder-0.5b-instruct").split(",").map((spec) => {
  const eq = spec.indexOf("=");
  return eq > 0 ? { name: spec.slice(0, eq), path: spec.slice(eq + 1) } : { name: spec, path: pathOf(spec) };
});

const load = (f: string): TrainingExample[] => loadAlertExamples(f);
// GENERATED=train,styled for the curve bench's generated set; the default train.jsonl alone keeps a decoder's
// embedding time (about 1.4 s per text on two busy cores) within the hour.
const generated = (process.env.GENERATED ?? "train").split(",").flatMap(load);
// Out-of-domain variants (one embedding each) from this many training examples; deputy distill makes 256.
const VARIANTS = Number(process.env.VARIANTS ?? 64);
const tuning = load("heldout");
const SETS = (process.env.SETS ?? "holdout5,holdout2").split(",");
const allConfigs = [
  { added: 90, people: ["escalations"], measured: SETS },
  { added: 0, people: [] as string[], measured: SETS },
  {
    added: 826,
    people: ["escalations", "development", "handwritten", "holdout2", "holdout3", "holdout4"],
    measured: ["holdout5"],
  },
];
// STEPS=90,0 (default) or 90,0,826: which configurations, in this order.
const STEPS = (process.env.STEPS ?? "90,0").split(",").map(Number);
const configs = STEPS.map((n) => allConfigs.find((c) => c.added === n)!);

/** The largest share of `m`'s examples some threshold decides at precision ≥ TARGET on them. */
function bestCoverage(m: Measurement): number {
  const sorted = [...m.scored].sort((a, b) => b.score - a.score);
  let best = 0;
  let right = 0;
  sorted.forEach((s, i) => {
    if (s.correct) right++;
    const boundary = i === sorted.length - 1 || sorted[i + 1]!.score < s.score;
    if (boundary && right / (i + 1) >= TARGET) best = (i + 1) / sorted.length;
  });
  return best;
}

interface Row {
  encoder: string;
  /** The generated sets trained on, and the examples out-of-domain variants were made from. */
  generated: string;
  variants: number;
  dimension: number;
  pooling?: string;
  input: string;
  added: number;
  set: string;
  threshold: number;
  coverage: number;
  precision: number | null;
  decided: number;
  wrong: number;
  accuracy: number;
  bestCoverage: number;
  embedSecondsPerText?: number;
}
const rows: Row[] = existsSync(OUT) ? (JSON.parse(readFileSync(OUT, "utf8")) as Row[]) : [];
for (const { name, path } of encoders) {
  const real = await GgufTextEncoder.open(path);
  const encoder = diskCached(real);
  // Time per text, measured on 8 texts nothing has embedded (not from the cache).
  const probe = generated.slice(0, 8).map((e, i) => `${e.instruction} #${i} ${Date.now()}`);
  const t0 = performance.now();
  await real.embed(probe);
  const perText = (performance.now() - t0) / 1000 / probe.length;
  console.error(
    `${name}: ${real.info.dimension} dimensions, pooling ${real.info.pooling}, ${perText.toFixed(3)} s per text`,
  );
  for (const c of configs) {
    const resolved = c.people.flatMap(load);
    const started = performance.now();
    const r = await trainDistilledWithEncoder(
      [...generated, ...resolved],
      {
        node: "triage_items",
        heldOut: tuning,
        validation: new Set(resolved),
        targetPrecision: TARGET,
        seed: 1,
        maxVariantExamples: VARIANTS,
        ...(INPUT ? { encoderInput: INPUT } : {}),
      },
      encoder,
    );
    console.error(`${name} +${c.added}: trained in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    for (const set of c.measured) {
      const m = await measureModel(r.model, load(set), encoder);
      const kept = m.scored.filter((s) => s.score >= m.atRecommended.threshold);
      const row: Row = {
        encoder: name,
        generated: generatedName,
        variants: VARIANTS,
        dimension: real.info.dimension,
        ...(real.info.pooling ? { pooling: real.info.pooling } : {}),
        input: r.model.encoder?.input ?? "instruction",
        added: c.added,
        set,
        threshold: r.recommendedMinConfidence,
        coverage: m.atRecommended.coverage,
        precision: m.atRecommended.precision,
        decided: kept.length,
        wrong: kept.filter((s) => !s.correct).length,
        accuracy: m.accuracy,
        bestCoverage: bestCoverage(m),
        embedSecondsPerText: Number(perText.toFixed(4)),
      };
      const i = rows.findIndex((x) => key(x) === key(row));
      if (i >= 0) rows[i] = row;
      else rows.push(row);
      writeFileSync(OUT, JSON.stringify(rows, null, 2) + "\n");
      console.log(JSON.stringify(row));
    }
  }
  await encoder.close();
}

const pct = (v: number | null) => (v === null ? "–" : `${(v * 100).toFixed(1)}%`);
console.log(
  `\nencoder | decisions | set | min_confidence | coverage | precision (wrong of decided) | accuracy | best coverage at ≥${TARGET * 100}%`,
);
for (const r of rows)
  console.log(
    `${r.encoder} | ${r.added} | ${r.set} | ${r.threshold.toFixed(3)} | ${pct(r.coverage)} | ${pct(r.precision)} (${r.wrong} of ${r.decided}) | ${pct(r.accuracy)} | ${pct(r.bestCoverage)}`,
  );
