// Development protocol of the distilled delegate's threshold rule and training data: reads only development data
// (never holdout3.jsonl, the measured set). Trains on the generated traces plus resolved escalations and measures on
// (a) the escalations left out (odd half ↔ even half, both ways) and (b) development.jsonl, alerts written by hand
// for development only, and (c) holdout2.jsonl and handwritten.jsonl, development data since they were measured.
// Writes every score to OUT (default /tmp/distill-dev.json) for comparing rules offline.
// DATA=DIR reads the sets from another folder. Run: npm run build && node --import tsx bench/distill-dev.ts
import { writeFileSync } from "node:fs";
import { encoderModelPath, loadAlertExamples, memoized } from "./alert-data.js";
import { trainDistilled, type TrainingExample } from "../dist/distill/index.js";
import { DistilledPredictor } from "../dist/distill/distilled-predictor.js";
import { encoderText } from "../dist/distill/encoder-input.js";
import { GgufTextEncoder } from "../dist/distill/gguf-text-encoder.js";
import type { DistilledModelData } from "../dist/distill/model-file.js";
import { exactMatch } from "../dist/distill/training-examples.js";
import { trainDistilledWithEncoder } from "../dist/distill/train-with-encoder.js";

const load = (f: string): TrainingExample[] => loadAlertExamples(f, process.env.DATA);
const real = await GgufTextEncoder.open(encoderModelPath());
const encoder = memoized(real);

const generated = [
  ...load("train"),
  ...load("styled"),
  ...(process.env.EXTRA ? load(process.env.EXTRA) : []),
];
const tuning = load("heldout");
const esc = load("escalations");
const dev = load("development");
const holdout2 = load("holdout2");
const handwritten = load("handwritten");
const odd = esc.filter((_, i) => i % 2 === 1);
const even = esc.filter((_, i) => i % 2 === 0);
type Config = { name: string; resolved: TrainingExample[]; measure: Record<string, TrainingExample[]> };
const all: Config[] = [
  { name: "k0", resolved: [], measure: { dev, esc, holdout2, handwritten } },
  { name: "k45odd", resolved: odd, measure: { dev, esc: even, holdout2, handwritten } },
  { name: "k45even", resolved: even, measure: { dev, esc: odd, holdout2, handwritten } },
  { name: "k90", resolved: esc, measure: { dev, holdout2, handwritten } },
];
const configs = all.filter((c) => !process.env.ONLY || process.env.ONLY.split(",").includes(c.name));

async function score(model: DistilledModelData, set: TrainingExample[]) {
  const predictor = new DistilledPredictor(model);
  const vectors = model.encoder
    ? await encoder.embed(set.map((e) => encoderText(e.instruction, model.encoder!.prefix)))
    : undefined;
  return set.map((e, i) => {
    const p = predictor.predict(predictor.prepare(e.instruction, e.facts, vectors?.[i]));
    return {
      confidence: p.confidence,
      correct: exactMatch(p, e.call),
      call: JSON.stringify([p.name, p.arguments]),
    };
  });
}

const out: Record<string, unknown> = {};
for (const c of configs) {
  const examples = [...generated, ...c.resolved];
  const options = {
    node: "triage_items",
    heldOut: tuning,
    validation: new Set(c.resolved),
    seed: Number(process.env.SEED ?? 1),
  };
  for (const kind of ["encoder", "n-grams"] as const) {
    const t0 = performance.now();
    const r =
      kind === "encoder"
        ? await trainDistilledWithEncoder(
            examples,
            { ...options, crossCheck: process.env.CROSS !== "0" },
            encoder,
          )
        : trainDistilled(examples, options);
    const measured: Record<string, unknown> = {};
    for (const [name, set] of Object.entries(c.measure)) measured[name] = await score(r.model, set);
    out[`${c.name}/${kind}`] = { threshold: r.recommendedMinConfidence, choice: r.choiceScores, measured };
    const summary = Object.entries(measured).map(([name, s]) => {
      const list = s as { confidence: number; correct: boolean }[];
      const kept = list.filter((x) => x.confidence >= r.recommendedMinConfidence);
      return `${name}: cov ${((kept.length / list.length) * 100).toFixed(1)}% prec ${((kept.filter((x) => x.correct).length / Math.max(1, kept.length)) * 100).toFixed(1)}% (${kept.length - kept.filter((x) => x.correct).length} wrong)`;
    });
    console.log(
      `${c.name} ${kind} thr ${r.recommendedMinConfidence.toFixed(3)} ${summary.join("  ")} ${((performance.now() - t0) / 1000).toFixed(0)}s`,
    );
  }
}
await real.close();
writeFileSync(process.env.OUT ?? "/tmp/distill-dev.json", JSON.stringify(out));
