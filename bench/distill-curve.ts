// The learning curve of the distilled delegate on the alert-triage example: train on the generated traces (the
// templated train.jsonl and styled.jsonl, in real sources' styles) plus the first k resolved escalations
// (examples/alert-triage/data/escalations.jsonl: alerts written by hand in real systems' styles, labelled as a
// person resolving them would); the threshold is chosen on the out-of-fold predictions of those escalations (a
// validation split of the training data) once there are 20, before that on half the generated held-out set; measure
// coverage and precision at the recommended min_confidence on the hand-written held-out set (holdout3.jsonl), which
// no model trains or tunes on and no setting was chosen by — with the encoder and with n-grams alone — and beside it
// on holdout2.jsonl and handwritten.jsonl, the earlier hand-written sets, development data since they were measured.
// Also the share of out-of-domain inputs escalated. Writes docs/distill-curve.svg and prints the table.
// Run: npm run bench:distill-curve  (ENCODER=PATH, default: what scripts/encoder-model.sh prints; STEPS=0,15,…;
// APPEND=1 keeps the points already in docs/NAME.json; RENDER=1 only redraws the picture from it; MEASURED=SET;
// PEOPLE=set,set,… the people's decisions added in order; COUNTERFACTUAL_SHARE=0.5; TARGET=0.98; NAME=distill-curve).
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { encoderModelPath, loadAlertExamples, memoized, root } from "./alert-data.js";
import { trainDistilled, type TrainingExample } from "../dist/distill/index.js";
import { GgufTextEncoder } from "../dist/distill/gguf-text-encoder.js";
import { measureModel, type Measurement } from "../dist/distill/measure-model.js";
import { trainDistilledWithEncoder } from "../dist/distill/train-with-encoder.js";
import { outOfDomainExamples } from "../dist/distill/out-of-domain-inputs.js";
// @ts-expect-error -- an untyped example script
import { counterfactuals } from "../examples/alert-triage/data/counterfactual.mjs";

const load = (f: string): TrainingExample[] => loadAlertExamples(f);
const STEPS = (process.env.STEPS ?? "0,15,30,45,60,90").split(",").map(Number);
const encoderPath = encoderModelPath();

const NAME = process.env.NAME ?? "distill-curve";
const pointsFile = `${root}docs/${NAME}.json`;
const render = process.env.RENDER === "1";
const real = await GgufTextEncoder.open(render ? "" : encoderPath).catch((error: unknown) => {
  if (render) return undefined;
  throw error;
});
const encoder = memoized(real);

const train = [...load("train"), ...load("styled")];
const tuning = load("heldout");
// PEOPLE: the sets standing for people's decisions, added in this order (default: the 90 resolved escalations).
const PEOPLE = (process.env.PEOPLE ?? "escalations").split(",");
const escalations = PEOPLE.flatMap(load);
// COUNTERFACTUAL_SHARE: also non-production copies of that share of the added pages and tickets (counterfactual.mjs).
const SHARE = Number(process.env.COUNTERFACTUAL_SHARE ?? 0);
const measuredName = process.env.MEASURED ?? "holdout3";
const measured = load(measuredName);
const developmentSets = ["holdout2", "handwritten"].filter((f) => f !== measuredName && !PEOPLE.includes(f));
const development = Object.fromEntries(developmentSets.map((f) => [f, load(f)]));
const ood = outOfDomainExamples(train[0]!);
interface Summary {
  coverage: number;
  precision: number | null;
  accuracy: number;
  decided: number;
  wrong: number;
}
interface Point {
  added: number;
  model: string;
  threshold: number;
  chosenOn?: string;
  coverage: number;
  precision: number | null;
  accuracy: number;
  /** Calls decided (at or above the threshold) and how many of them were wrong. */
  decided?: number;
  wrong?: number;
  /** The same on each development set (holdout2.jsonl, handwritten.jsonl). */
  development?: Record<string, Summary>;
  oodEscalated: number;
}
const counts = (m: Measurement) => {
  const kept = m.scored.filter((s) => s.score >= m.atRecommended.threshold);
  return { decided: kept.length, wrong: kept.filter((s) => !s.correct).length };
};
const points: Point[] =
  (render || process.env.APPEND === "1") && existsSync(pointsFile)
    ? (JSON.parse(readFileSync(pointsFile, "utf8")) as Point[])
    : [];
for (const added of render ? [] : STEPS) {
  const resolved = escalations.slice(0, added);
  const copies: TrainingExample[] =
    SHARE > 0 ? counterfactuals(resolved, { kinds: ["non-production"], share: SHARE }) : [];
  const examples = [...train, ...copies, ...resolved];
  const options = {
    node: "triage_items",
    heldOut: tuning,
    validation: new Set(resolved),
    ...(process.env.TARGET ? { targetPrecision: Number(process.env.TARGET) } : {}),
  };
  for (const kind of ["encoder", "n-grams"] as const) {
    const r =
      kind === "encoder"
        ? await trainDistilledWithEncoder(examples, options, encoder)
        : trainDistilled(examples, options);
    const m = await measureModel(r.model, measured, encoder);
    const dev: Record<string, Summary> = {};
    for (const [name, set] of Object.entries(development)) {
      const d = await measureModel(r.model, set, encoder);
      dev[name] = {
        coverage: d.atRecommended.coverage,
        precision: d.atRecommended.precision,
        accuracy: d.accuracy,
        ...counts(d),
      };
    }
    const o = await measureModel(r.model, ood, encoder);
    const point = {
      added,
      model: kind,
      threshold: r.recommendedMinConfidence,
      chosenOn: r.validationExamples ? "escalations" : "generated",
      coverage: m.atRecommended.coverage,
      precision: m.atRecommended.precision,
      accuracy: m.accuracy,
      ...counts(m),
      development: dev,
      oodEscalated: o.scored.filter((s) => s.score < r.recommendedMinConfidence).length / o.examples,
    };
    points.push(point);
    points.sort((a, b) => a.added - b.added || a.model.localeCompare(b.model));
    writeFileSync(pointsFile, JSON.stringify(points, null, 2) + "\n");
    console.log(JSON.stringify(point));
  }
}
await real?.close();
const steps = [...new Set(points.map((p) => p.added))].sort((a, b) => a - b);

const pct = (v: number | null) => (v === null ? "–" : `${(v * 100).toFixed(1)}%`);
console.log(
  `\nresolved escalations added | model    | min_confidence | measured (${measured.length}): coverage | precision (wrong) | accuracy | ${developmentSets.map((f) => `${f} (development): coverage | precision (wrong)`).join(" | ")} | OOD escalated`,
);
for (const p of points)
  console.log(
    `${String(p.added).padStart(26)} | ${p.model.padEnd(8)} | ${p.threshold.toFixed(3).padStart(14)} | ${pct(p.coverage).padStart(8)} | ${pct(p.precision).padStart(9)} (${p.wrong ?? "?"} of ${p.decided ?? "?"}) | ${pct(p.accuracy).padStart(8)} | ${developmentSets
      .map((f) => {
        const d = p.development?.[f];
        return d ? `${pct(d.coverage)} | ${pct(d.precision)} (${d.wrong} of ${d.decided})` : "–";
      })
      .join(" | ")} | ${pct(p.oodEscalated).padStart(13)}`,
  );

// The picture: coverage and precision (y, 0–100%) against escalations added (x), one line per model and measure.
const W = 640;
const H = 360;
const M = { l: 56, r: 150, t: 30, b: 46 };
const maxX = Math.max(...steps, 1);
const x = (v: number) => M.l + (v / maxX) * (W - M.l - M.r);
const y = (v: number) => M.t + (1 - v) * (H - M.t - M.b);
const series = [
  { model: "encoder", key: "precision", color: "#1f77b4", dash: "" },
  { model: "encoder", key: "coverage", color: "#1f77b4", dash: "6 4" },
  { model: "n-grams", key: "precision", color: "#d62728", dash: "" },
  { model: "n-grams", key: "coverage", color: "#d62728", dash: "6 4" },
] as const;
const lines = series.map((s, i) => {
  const pts = points
    .filter((p) => p.model === s.model && p[s.key] !== null)
    .map((p) => `${x(p.added).toFixed(1)},${y(p[s.key]!).toFixed(1)}`);
  const ly = M.t + 14 + i * 20;
  return `<polyline fill="none" stroke="${s.color}" stroke-width="2" stroke-dasharray="${s.dash}" points="${pts.join(" ")}"/>
${pts.map((pt) => `<circle cx="${pt.split(",")[0]}" cy="${pt.split(",")[1]}" r="3" fill="${s.color}"/>`).join("")}
<line x1="${W - M.r + 12}" y1="${ly}" x2="${W - M.r + 40}" y2="${ly}" stroke="${s.color}" stroke-width="2" stroke-dasharray="${s.dash}"/>
<text x="${W - M.r + 46}" y="${ly + 4}" font-size="12">${s.model} ${s.key}</text>`;
});
const grid = [0, 0.25, 0.5, 0.75, 1]
  .map(
    (v) =>
      `<line x1="${M.l}" y1="${y(v)}" x2="${W - M.r}" y2="${y(v)}" stroke="#ddd"/><text x="${M.l - 8}" y="${y(v) + 4}" font-size="11" text-anchor="end">${v * 100}%</text>`,
  )
  .join("\n");
// The issue's target: precision at least 97 %, coverage at least 60 %.
const targets = [
  [0.97, "precision target 97%"],
  [0.6, "coverage target 60%"],
] as const;
const targetLines = targets
  .map(
    ([v, label]) =>
      `<line x1="${M.l}" y1="${y(v)}" x2="${W - M.r}" y2="${y(v)}" stroke="#999" stroke-dasharray="2 3"/><text x="${W - M.r - 4}" y="${y(v) + 14}" font-size="10" fill="#666" text-anchor="end">${label}</text>`,
  )
  .join("\n");
const ticks = steps
  .map((v) => `<text x="${x(v)}" y="${H - M.b + 16}" font-size="11" text-anchor="middle">${v}</text>`)
  .join("");
const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif">
<rect width="100%" height="100%" fill="white"/>
<text x="${M.l}" y="18" font-size="13">Hand-written held-out alerts (${measured.length}, ${measuredName}), at the recommended min_confidence</text>
${grid}
${targetLines}
<line x1="${M.l}" y1="${y(0)}" x2="${W - M.r}" y2="${y(0)}" stroke="#333"/>
${ticks}
<text x="${(M.l + W - M.r) / 2}" y="${H - 8}" font-size="12" text-anchor="middle">people's decisions added to the ${train.length} generated traces</text>
${lines.join("\n")}
</svg>
`;
writeFileSync(`${root}docs/${NAME}.svg`, svg);
console.log(`\nwrote docs/${NAME}.svg`);
