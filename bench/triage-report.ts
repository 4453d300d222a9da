/**
 * The alert-triage table and cascade of docs/quality.md from bench/triage-run.ts's records: accuracy, coverage
 * and precision of the distilled model and of the real model on the same held-out alerts, and the cascade
 * distilled → real model → person (each level takes what it is confident of, at the gate's `min_confidence`).
 *
 *   node --import tsx bench/triage-report.ts triage.jsonl [--real-min-confidence 0.8]
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";

interface TriageRecord {
  backend: string;
  item: number;
  name: string | null;
  confidence: number | null;
  correct: boolean;
  expected: string | null;
  latencyMs: number;
  distilledMinConfidence: number;
}

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { "real-min-confidence": { type: "string", default: "0.8" } },
});
const records = readFileSync(positionals[0] ?? "bench/results/alert-triage-qwen2.5-coder-0.5b.jsonl", "utf8")
  .split("\n")
  .filter(Boolean)
  .map((l) => JSON.parse(l) as TriageRecord);
const real = new Map(records.filter((r) => r.backend !== "distilled").map((r) => [r.item, r]));
// Only the alerts both levels answered, so the rows compare like with like.
const distilled = records.filter((r) => r.backend === "distilled" && real.has(r.item));
const realName = [...real.values()][0]?.backend ?? "real";
const distilledMin = distilled[0]?.distilledMinConfidence ?? 1;
const realMin = Number(values["real-min-confidence"]);

const pct = (n: number, d: number) => (d === 0 ? "–" : `${((100 * n) / d).toFixed(0)} % (${n}/${d})`);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const accepted = (r: TriageRecord, min: number) => r.name !== null && (r.confidence ?? 0) >= min;

console.log(`| backend | min_confidence | exact call | right tool | coverage | precision | median latency |`);
console.log(`|---|---|---|---|---|---|---|`);
for (const [label, rows, min] of [
  ["distilled", distilled, distilledMin],
  [realName, [...real.values()].filter((r) => distilled.some((d) => d.item === r.item)), realMin],
] as const) {
  const kept = rows.filter((r) => accepted(r, min));
  console.log(
    `| ${label} | ${min} | ${pct(rows.filter((r) => r.correct).length, rows.length)} | ${pct(
      rows.filter((r) => r.name === r.expected).length,
      rows.length,
    )} | ${pct(kept.length, rows.length)} | ${pct(kept.filter((r) => r.correct).length, kept.length)} | ${median(
      rows.map((r) => r.latencyMs),
    ).toFixed(0)} ms |`,
  );
}
console.log();

// The cascade over the same alerts.
const levels = {
  distilled: [] as TriageRecord[],
  [realName]: [] as TriageRecord[],
  person: [] as TriageRecord[],
};
let realTime = 0;
const asked: TriageRecord[] = [];
for (const d of distilled) {
  if (accepted(d, distilledMin)) levels.distilled!.push(d);
  else {
    const r = real.get(d.item)!;
    realTime += r.latencyMs;
    asked.push(r);
    if (accepted(r, realMin)) levels[realName]!.push(r);
    else levels.person!.push(r);
  }
}
console.log(`| level | decides | exactly right | latency of a proposal at this level |`);
console.log(`|---|---|---|---|`);
for (const [level, rows] of Object.entries(levels)) {
  const asks = level === "distilled" ? distilled : asked;
  const latency =
    level === "person" ? "a person's" : `${median(asks.map((r) => r.latencyMs)).toFixed(0)} ms median`;
  console.log(
    `| ${level} | ${pct(rows.length, distilled.length)} | ${
      level === "person" ? "–" : pct(rows.filter((r) => r.correct).length, rows.length)
    } | ${latency} |`,
  );
}
console.log(
  `\n${realName} time spent on the alerts the distilled level passed on: ${(realTime / 1000).toFixed(0)} s in all`,
);
