// Compares threshold rules of the distilled delegate offline on the scores bench/distill-rules.ts wrote
// (development data only): at each curve point and seed, the threshold each rule picks from the rows the library
// chooses on (the generated tuning half below 20 escalations, the escalations' out-of-fold scores from 20 on;
// "pooled" rules use both), then coverage and precision at it on handwritten.jsonl and development.jsonl, and the
// share of out-of-domain inputs escalated. Prints a markdown table per model.
// Run: node --import tsx bench/distill-rules-compare.ts /tmp/distill-rules-s1.json /tmp/distill-rules-s2.json …
import { readFileSync } from "node:fs";
import { seededRandom } from "../dist/distill/random.js";

type Scores = [confidence: number, correct: number][];
interface Point {
  threshold: number;
  validation: Scores;
  tuning: Scores;
  measured: Record<string, Scores>;
}
const data: Record<string, Point> = {};
for (const f of process.argv.slice(2)) Object.assign(data, JSON.parse(readFileSync(f, "utf8")));

/** The smallest distinct confidence t whose rows at or above it satisfy `ok` (1 when none does). */
function smallest(s: Scores, ok: (right: number, n: number, sumConfidence: number) => boolean): number {
  const sorted = [...s].sort((a, b) => b[0] - a[0]);
  let right = 0;
  let sum = 0;
  let best = 1;
  sorted.forEach((p, i) => {
    right += p[1];
    sum += p[0];
    const next = sorted[i + 1];
    if (next && next[0] === p[0]) return;
    if (ok(right, i + 1, sum)) best = Math.min(best, p[0]);
  });
  return best;
}
const wilsonLow = (r: number, n: number, z: number) => {
  const p = r / n;
  const d = 1 + (z * z) / n;
  return (p + (z * z) / (2 * n) - z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / d;
};
/** The median over 200 bootstrap resamples of the point-estimate rule's threshold. */
function bootstrapMedian(s: Scores, target: number): number {
  const random = seededRandom(7);
  const ts: number[] = [];
  for (let b = 0; b < 200; b++)
    ts.push(
      smallest(
        s.map(() => s[Math.floor(random() * s.length)]!),
        (r, n) => r / n >= target,
      ),
    );
  return ts.sort((a, b) => a - b)[100]!;
}
const point = (target: number) => (s: Scores) => smallest(s, (r, n) => r / n >= target);
type Rule = (choice: Scores, pooled: Scores) => number;
const floor =
  (f: number): Rule =>
  (c) =>
    Math.max(f, point(0.98)(c));
const rules: [string, Rule][] = [
  ["point estimate ≥ 0.98 (before)", (c) => point(0.98)(c)],
  ["point estimate ≥ 0.99", (c) => point(0.99)(c)],
  ["pooled rows, point estimate ≥ 0.98", (_, p) => point(0.98)(p)],
  ["one more wrong call assumed: right/(n+1) ≥ 0.98", (c) => smallest(c, (r, n) => r / (n + 1) >= 0.98)],
  ["(right+1)/(n+2) ≥ 0.98", (c) => smallest(c, (r, n) => (r + 1) / (n + 2) >= 0.98)],
  ["Wilson lower bound (z = 1) ≥ 0.95", (c) => smallest(c, (r, n) => wilsonLow(r, n, 1) >= 0.95)],
  ["bootstrap median of the point-estimate threshold", (c) => bootstrapMedian(c, 0.98)],
  [
    "point ≥ 0.98 and mean confidence ≥ 0.93",
    (c) => smallest(c, (r, n, m) => r / n >= 0.98 && m / n >= 0.93),
  ],
  ["point ≥ 0.98, floor 0.7", floor(0.7)],
  ["point ≥ 0.98, floor 0.75", floor(0.75)],
  ["point ≥ 0.98, floor 0.8 (kept)", floor(0.8)],
  ["point ≥ 0.98, floor 0.85", floor(0.85)],
  ["point ≥ 0.97, floor 0.8", (c) => Math.max(0.8, point(0.97)(c))],
  ["fixed 0.7", () => 0.7],
  ["fixed 0.8", () => 0.8],
  ["pooled rows, point ≥ 0.98, floor 0.8", (_, p) => Math.max(0.8, point(0.98)(p))],
];
const pct = (v: number) => `${(v * 100).toFixed(1)} %`;
for (const kind of ["encoder", "n-grams"]) {
  const keys = Object.keys(data).filter((k) => k.endsWith(`/${kind}`));
  console.log(
    `\n${kind}: ${keys.length} points (seed/escalations: ${keys.map((k) => k.split("/").slice(0, 2).join("/")).join(", ")})\n`,
  );
  console.log(
    "| rule | points missing 97 % / 60 % (hand-written; development) | hand-written: min precision, min coverage | development: min precision, min coverage | thresholds | out-of-domain escalated (min) |",
  );
  console.log("|---|---|---|---|---|---|");
  for (const [name, rule] of rules) {
    const miss = { handwritten: 0, development: 0 };
    const min = { handwritten: [1, 1], development: [1, 1] } as Record<string, number[]>;
    let ood = 1;
    let lo = 1;
    let hi = 0;
    for (const k of keys) {
      const d = data[k]!;
      const choice = d.validation.length >= 20 ? d.validation : d.tuning;
      const t = rule(choice, [...d.tuning, ...d.validation]);
      lo = Math.min(lo, t);
      hi = Math.max(hi, t);
      for (const set of ["handwritten", "development"] as const) {
        const m = d.measured[set]!;
        const kept = m.filter((x) => x[0] >= t);
        const coverage = kept.length / m.length;
        const precision = kept.length ? kept.filter((x) => x[1]).length / kept.length : 1;
        if (precision < 0.97 || coverage < 0.6) miss[set]++;
        min[set] = [Math.min(min[set]![0]!, precision), Math.min(min[set]![1]!, coverage)];
      }
      const o = d.measured.ood!;
      ood = Math.min(ood, o.filter((x) => x[0] < t).length / o.length);
    }
    console.log(
      `| ${name} | ${miss.handwritten}; ${miss.development} | ${pct(min.handwritten![0]!)}, ${pct(min.handwritten![1]!)} | ${pct(min.development![0]!)}, ${pct(min.development![1]!)} | ${lo.toFixed(2)}–${hi.toFixed(2)} | ${pct(ood)} |`,
    );
  }
}
