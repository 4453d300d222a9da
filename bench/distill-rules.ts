// Scores for comparing threshold rules of the distilled delegate offline, on development data only: at every
// point of the learning curve (the first k escalations added to the generated traces) and seed, the out-of-fold
// scores of the escalations trained on, the scores of the generated held-out tuning half, and the scores of
// handwritten.jsonl and development.jsonl (both development data), the escalations not trained on and the
// out-of-domain inputs. Never reads holdout2.jsonl. Writes OUT (default /tmp/distill-rules.json).
// Run: npm run build && node --import tsx bench/distill-rules.ts  (SEEDS=1,2 STEPS=0,15,30,45,60,90)
import { writeFileSync } from "node:fs";
import { encoderModelPath, loadAlertExamples, memoized } from "./alert-data.js";
import { trainDistilled, type TrainingExample } from "../dist/distill/index.js";
import { GgufTextEncoder } from "../dist/distill/gguf-text-encoder.js";
import { measureModel } from "../dist/distill/measure-model.js";
import { outOfDomainExamples } from "../dist/distill/out-of-domain-inputs.js";
import type { ScoredOutcome } from "../dist/confidence/score-metrics.js";
import { trainDistilledWithEncoder } from "../dist/distill/train-with-encoder.js";

const load = (f: string): TrainingExample[] => loadAlertExamples(f);
const real = await GgufTextEncoder.open(encoderModelPath());
const encoder = memoized(real);
const train = [...load("train"), ...load("styled")];
const tuning = load("heldout");
const escalations = load("escalations");
const sets = { handwritten: load("handwritten"), development: load("development") };
const ood = outOfDomainExamples(train[0]!);
const compact = (s: readonly ScoredOutcome[]) => s.map((p) => [+p.score.toFixed(5), p.correct ? 1 : 0]);
const STEPS = (process.env.STEPS ?? "0,15,30,45,60,90").split(",").map(Number);
const SEEDS = (process.env.SEEDS ?? "1,2").split(",").map(Number);
const out: Record<string, unknown> = {};
for (const seed of SEEDS)
  for (const k of STEPS) {
    const resolved = escalations.slice(0, k);
    const options = { node: "triage_items", heldOut: tuning, validation: new Set(resolved), seed };
    for (const kind of ["encoder", "n-grams"] as const) {
      const t0 = performance.now();
      const r =
        kind === "encoder"
          ? await trainDistilledWithEncoder([...train, ...resolved], options, encoder)
          : trainDistilled([...train, ...resolved], options);
      const measured: Record<string, unknown> = {};
      const toMeasure = { ...sets, escRest: escalations.slice(k), ood };
      for (const [name, set] of Object.entries(toMeasure))
        if (set.length) measured[name] = compact((await measureModel(r.model, set, encoder)).scored);
      out[`${seed}/${k}/${kind}`] = {
        threshold: r.recommendedMinConfidence,
        validation: compact(r.validationScores),
        tuning: compact(r.tuningScores),
        measured,
      };
      writeFileSync(process.env.OUT ?? "/tmp/distill-rules.json", JSON.stringify(out));
      console.log(
        `seed ${seed} k ${k} ${kind} thr ${r.recommendedMinConfidence} ${((performance.now() - t0) / 1000).toFixed(0)}s`,
      );
    }
  }
await real.close();
