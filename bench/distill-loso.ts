// Leave one hand-written set out (development protocol, issue 14 item 2): train the distilled delegate on the
// generated traces plus every hand-written development set but one (as people's labels: they also choose the
// threshold, out of fold), and measure the left-out set at the recommended min_confidence — an estimate of what a
// set written by someone else, which no model has seen, will show. Reads only development sets (never a sealed one).
// Run: npm run build && node --import tsx bench/distill-loso.ts   (SETS=a,b,… LEAVE=a,… KINDS=encoder,n-grams TARGET=0.98 FLOOR=0.8 ENCODER=PATH)
import { encoderModelPath, loadAlertExamples, memoized } from "./alert-data.js";
import { trainDistilled, type TrainingExample } from "../dist/distill/index.js";
import { GgufTextEncoder } from "../dist/distill/gguf-text-encoder.js";
import { measureModel } from "../dist/distill/measure-model.js";
import { trainDistilledWithEncoder } from "../dist/distill/train-with-encoder.js";
// @ts-expect-error -- an untyped example script
import { counterfactuals } from "../examples/alert-triage/data/counterfactual.mjs";

const SETS = (process.env.SETS ?? "escalations,handwritten,development,holdout2,holdout3").split(",");
const LEAVE = process.env.LEAVE?.split(",") ?? SETS;
const KINDS = (process.env.KINDS ?? "encoder,n-grams").split(",");
const real = await GgufTextEncoder.open(encoderModelPath());
const encoder = memoized(real);
const generated = [...loadAlertExamples("train"), ...loadAlertExamples("styled")];
const tuning = loadAlertExamples("heldout");
const sets = Object.fromEntries(SETS.map((s) => [s, loadAlertExamples(s)]));
const pct = (v: number | null) => (v === null ? "–" : `${(v * 100).toFixed(1)}%`);
console.log(
  "left out | model | people's labels | min_confidence | coverage | precision (wrong of decided) | accuracy",
);
for (const left of LEAVE) {
  const people: TrainingExample[] = SETS.filter((s) => s !== left).flatMap((s) => sets[s]!);
  // COUNTERFACTUAL=non-production,self-resolved: also the non-production and resolved copies of the people's pages and tickets.
  const copies: TrainingExample[] = process.env.COUNTERFACTUAL
    ? (counterfactuals(people, {
        kinds: process.env.COUNTERFACTUAL.split(","),
        share: Number(process.env.SHARE ?? 1),
      }) as TrainingExample[])
    : [];
  const options = {
    node: "triage_items",
    heldOut: tuning,
    validation: new Set(people),
    seed: 1,
    ...(process.env.TARGET ? { targetPrecision: Number(process.env.TARGET) } : {}),
    ...(process.env.FLOOR ? { confidenceFloor: Number(process.env.FLOOR) } : {}),
  };
  for (const kind of KINDS) {
    const t0 = performance.now();
    const r =
      kind === "encoder"
        ? await trainDistilledWithEncoder([...generated, ...copies, ...people], options, encoder)
        : trainDistilled([...generated, ...copies, ...people], options);
    const m = await measureModel(r.model, sets[left]!, encoder);
    const kept = m.scored.filter((s) => s.score >= m.atRecommended.threshold);
    const wrong = kept.filter((s) => !s.correct).length;
    console.log(
      `${left} (${sets[left]!.length}) | ${kind} | ${people.length} | ${r.recommendedMinConfidence.toFixed(3)} | ${pct(m.atRecommended.coverage)} | ${pct(m.atRecommended.precision)} (${wrong} of ${kept.length}) | ${pct(m.accuracy)}  [${((performance.now() - t0) / 1000).toFixed(0)} s]`,
    );
  }
}
await real.close();
