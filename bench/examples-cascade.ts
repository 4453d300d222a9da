/**
 * The cascade distilled → real model with the team's decisions → person on an alert-triage set, composed from
 * per-alert records (issue 23, items 4 and 5; protocol: bench/results/examples/protocol-holdout5.md).
 *
 *   # the distilled level: one JSON line per alert (its call, confidence, whether it is the team's)
 *   node --import tsx bench/examples-cascade.ts --distilled MODEL.json --set holdout5 --out distilled.jsonl
 *   # the alerts it passes on (below its recommended min_confidence), for examples-run.ts --indices
 *   node --import tsx bench/examples-cascade.ts --passed-on distilled.jsonl
 *   # the cascade: the distilled level decides at its threshold, the real model's rows (examples-run.ts, one k)
 *   # at --real-threshold, the rest wait for a person
 *   node --import tsx bench/examples-cascade.ts --report distilled.jsonl --real runs.jsonl --k 4 --real-threshold 0.863
 *
 * A level's call counts as right only when it is exactly the team's (every argument). Nothing is fitted here.
 */
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { DistilledDelegate } from "../src/distill/distilled-delegate.js";
import { exactMatch, examplesFromTraces } from "../src/distill/training-examples.js";
import { readTraces } from "../src/traces/read-traces.js";
import { wilsonInterval } from "../src/confidence/score-metrics.js";

const { values } = parseArgs({
  options: {
    distilled: { type: "string" },
    set: { type: "string", default: "holdout5" },
    out: { type: "string" },
    "passed-on": { type: "string" },
    report: { type: "string" },
    real: { type: "string" },
    k: { type: "string", default: "4" },
    "real-threshold": { type: "string" },
  },
});

interface DistilledRow {
  set: string;
  index: number;
  call: { name: string | null; arguments: Record<string, unknown> };
  confidence: number | null;
  exact: boolean;
  minConfidence: number;
}
interface RealRow {
  k: number;
  set: string;
  index: number;
  exact: boolean;
  declined: boolean;
  confidence: number | null;
  latencyMs: number;
}

const lines = <T>(file: string): T[] =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as T);
const decides = (confidence: number | null, threshold: number) =>
  confidence !== null && confidence >= threshold;

if (values.distilled && values.out) await distilledRows(values.distilled, values.out);
else if (values["passed-on"]) {
  const rows = lines<DistilledRow>(values["passed-on"]);
  console.log(
    rows
      .filter((r) => !decides(r.confidence, r.minConfidence))
      .map((r) => r.index)
      .join(","),
  );
} else if (values.report && values.real && values["real-threshold"]) report();
else {
  console.error(
    "usage: examples-cascade.ts --distilled MODEL.json --out FILE | --passed-on FILE | --report FILE --real FILE --real-threshold T",
  );
  process.exit(2);
}

async function distilledRows(model: string, out: string): Promise<void> {
  const data = new URL("../examples/alert-triage/data/", import.meta.url);
  const cases = examplesFromTraces(
    readTraces(new URL(`${values.set}.jsonl`, data).pathname).traces,
    "triage_items",
  ).examples;
  const done = new Set(existsSync(out) ? lines<DistilledRow>(out).map((r) => r.index) : []);
  const delegate = await DistilledDelegate.open({ model });
  try {
    for (const [index, c] of cases.entries()) {
      if (done.has(index)) continue;
      const p = await delegate.propose({ instruction: c.instruction, facts: c.facts, tools: c.tools });
      const row: DistilledRow = {
        set: values.set!,
        index,
        call: { name: p.name, arguments: p.arguments },
        confidence: p.confidence,
        exact: exactMatch(p, c.call),
        minConfidence: delegate.model.recommendedMinConfidence,
      };
      appendFileSync(out, `${JSON.stringify(row)}\n`);
    }
  } finally {
    await delegate.close();
  }
}

function report(): void {
  const distilled = lines<DistilledRow>(values.report!);
  const k = Number(values.k);
  const real = new Map(
    lines<RealRow>(values.real!)
      .filter((r) => r.k === k)
      .map((r) => [r.index, r]),
  );
  const t = Number(values["real-threshold"]);
  const n = distilled.length;
  const first = distilled.filter((r) => decides(r.confidence, r.minConfidence));
  const passed = distilled.filter((r) => !decides(r.confidence, r.minConfidence));
  const asked = passed.filter((r) => real.has(r.index));
  const missing = passed.length - asked.length;
  const second = asked.filter((r) => {
    const row = real.get(r.index)!;
    return !row.declined && decides(row.confidence, t);
  });
  const right1 = first.filter((r) => r.exact).length;
  const right2 = second.filter((r) => real.get(r.index)!.exact).length;
  const exactAsked = asked.filter((r) => real.get(r.index)!.exact).length;
  const latencies = asked.map((r) => real.get(r.index)!.latencyMs).sort((a, b) => a - b);
  const p50 = latencies.length ? latencies[Math.floor(latencies.length / 2)]! : 0;
  const pct = (a: number, b: number) => (b === 0 ? "–" : `${((100 * a) / b).toFixed(1)} % (${a}/${b})`);
  const wilson = (a: number, b: number) => {
    const [lo, hi] = wilsonInterval(a, b);
    return `${Math.round(100 * lo)}–${Math.round(100 * hi)} %`;
  };
  const minConfidence = distilled[0]?.minConfidence ?? NaN;
  console.log(
    `${n} alerts; distilled min_confidence ${minConfidence.toFixed(3)}, real model (k = ${k}) ${t}; ${missing} passed-on alerts without a real-model row\n`,
  );
  console.log("| level | asked | decides | exactly right | p50 latency of a proposal |");
  console.log("|---|---|---|---|---|");
  console.log(`| distilled | ${n} | ${pct(first.length, n)} | ${pct(right1, first.length)} | – |`);
  console.log(
    `| real model, k = ${k} | ${asked.length} | ${pct(second.length, n)} | ${pct(right2, second.length)} | ${(p50 / 1000).toFixed(1)} s |`,
  );
  console.log(
    `| person | ${passed.length - second.length} | ${pct(passed.length - second.length, n)} | – | – |`,
  );
  const decided = first.length + second.length;
  const right = right1 + right2;
  console.log(
    `\nThe cascade decides ${pct(decided, n)} at ${pct(right, decided)} exact (Wilson ${wilson(right, decided)}); the distilled level alone ${pct(first.length, n)}: ${(((decided - first.length) * 100) / n).toFixed(1)} points more. The real model's call was the team's on ${pct(exactAsked, asked.length)} of the alerts it was asked.`,
  );
}
