// The support-routing curve from 0 decisions, on development data only: train `deputy distill` on the first N of
// the team's development decisions (data/development.jsonl, in the order they were made), and measure the model
// with `deputy eval --suite` on the last 100, which no point trains or tunes on. Prints a Markdown table: per N the
// recommended min_confidence (chosen out of fold on the N decisions, aimed at 97 % precision), the share of the 100
// decided at it, the precision with its 95 % Wilson interval, and exact-call accuracy. At N = 0 there is no model:
// every ticket goes to a person.
//
//   npm run build && npm run example:support-curve
//   STEPS=0,30,60 TEST=100 ENCODER=$(bash scripts/encoder-model.sh) node examples/support-routing/curve.mjs
//
// ENCODER=PATH adds the MiniLM-encoder model (`--encoder gguf=PATH`) beside the n-gram one. Seed 1 throughout.
// The last column is a ceiling, not a result: the largest share of the 100 whose most confident calls are ≥ 97 %
// right, with the threshold picked on the measured decisions themselves — how well the model's confidence ranks
// right above wrong, apart from how the threshold is chosen.
//
// `trainOnFirst` and `VARIANTS` are the same training for code: bench/flywheel-sealed.ts measures this curve on the
// sealed set with them.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { DistilledDelegate } from "../../dist/distill/index.js";
import { decisionMatch } from "../../dist/eval/index.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const deputy = join(root, "bin/deputy.js");
const run = (args) => execFileSync(process.execPath, [deputy, ...args], { encoding: "utf8", stdio: "pipe" });

/** The node the decisions are of, and the free-text argument scored by `--free-text`. */
export const NODE = "route_tickets";
export const RULE = { names: ["summary"] };

/** The models of each point: n-grams, and with an encoder (`gguf=PATH`) the MiniLM-encoder model beside it. */
export const VARIANTS = (encoder) =>
  encoder
    ? [
        ["n-grams", []],
        ["encoder", ["--encoder", `gguf=${encoder}`]],
      ]
    : [["n-grams", []]];

/**
 * Trains `deputy distill` on the first `n` of the decision lines (`--resolved`: they also choose the threshold out
 * of fold, aimed at `target`; seed 1) into `dir/model-N-KIND.json`, and returns its path; undefined at n = 0 (no
 * model: every ticket goes to a person).
 */
export function trainOnFirst(lines, n, kind, extra, { dir, target = "0.97" }) {
  if (n === 0) return undefined;
  const prefix = join(dir, `first-${n}.jsonl`);
  const model = join(dir, `model-${n}-${kind}.json`);
  writeFileSync(prefix, lines.slice(0, n).join("\n") + "\n");
  run([
    "distill",
    "--resolved",
    prefix,
    "--node",
    NODE,
    "--out",
    model,
    "--target-precision",
    target,
    "--seed",
    "1",
    "--json",
    ...extra,
  ]);
  return model;
}

/** The largest share of `records` decided at ≥ `target` precision by some threshold on the model's confidence. */
async function ceiling(modelFile, records, target) {
  const delegate = await DistilledDelegate.open({ model: modelFile });
  const scored = [];
  for (const [item, r] of records.entries()) {
    const task = { instruction: r.instruction, facts: r.facts, tools: r.tools, node: r.nodeId, item };
    const p = await delegate.propose(task);
    const proposed = { name: p.name, arguments: p.arguments ?? {} };
    scored.push({
      confidence: p.confidence ?? 0,
      right: p.name !== null && decisionMatch(proposed, r.finalCall, RULE),
    });
  }
  await delegate.close();
  scored.sort((a, b) => b.confidence - a.confidence);
  let best = 0;
  let right = 0;
  for (const [i, s] of scored.entries()) {
    right += s.right ? 1 : 0;
    const tieBreaks = i + 1 === scored.length || scored[i + 1].confidence < s.confidence;
    if (tieBreaks && right / (i + 1) >= target) best = i + 1;
  }
  return best / records.length;
}

const pct = (x) => (x === null ? "–" : `${(x * 100).toFixed(1)} %`);

async function main() {
  const lines = readFileSync(new URL("data/development.jsonl", import.meta.url), "utf8")
    .trim()
    .split("\n");
  const TEST = Number(process.env.TEST ?? 100);
  const STEPS = (process.env.STEPS ?? "0,30,60,90,150,240").split(",").map(Number);
  const TARGET = process.env.TARGET ?? "0.97";
  const ENCODER = process.env.ENCODER;
  const trainable = lines.length - TEST;
  if (STEPS.some((n) => !Number.isInteger(n) || n < 0 || n > trainable))
    throw new Error(`STEPS must be integers from 0 to ${trainable}`);

  const dir = mkdtempSync(join(tmpdir(), "deputy-support-curve-"));
  const measured = join(dir, "measured.jsonl");
  writeFileSync(measured, lines.slice(trainable).join("\n") + "\n");
  const measuredRecords = lines.slice(trainable).map((l) => JSON.parse(l));
  const rows = [];
  for (const n of STEPS) {
    for (const [kind, extra] of VARIANTS(ENCODER)) {
      const model = trainOnFirst(lines, n, kind, extra, { dir, target: TARGET });
      if (!model) {
        rows.push(`| 0 | ${kind} | – | 0 of ${TEST} (0.0 %) | – | – | – |`);
        continue;
      }
      const report = JSON.parse(
        run([
          "eval",
          "--suite",
          measured,
          "--delegate",
          `distilled=${model}`,
          "--free-text",
          RULE.names.join(","),
          "--json",
        ]),
      );
      const level = report.chains[0].levels[0];
      const wilson = level.precisionInterval
        ? ` [${pct(level.precisionInterval[0])}, ${pct(level.precisionInterval[1])}]`
        : "";
      rows.push(
        `| ${n} | ${kind} | ${level.minConfidence?.toFixed(3) ?? "–"} | ${level.decided} of ${TEST} (${pct(level.decidedShare)}) | ` +
          `${pct(level.precision)}${wilson} (${level.decided - level.correct} wrong) | ${pct(level.exactAccuracy)} | ` +
          `${pct(await ceiling(model, measuredRecords, Number(TARGET)))} |`,
      );
      process.stderr.write(`${rows.at(-1)}\n`);
    }
  }
  rmSync(dir, { recursive: true, force: true });
  console.log(
    [
      `measured on the last ${TEST} development decisions (items ${trainable}–${lines.length - 1}); target precision ${TARGET}`,
      "",
      "| decisions trained on | model | min_confidence | decided | precision, 95 % Wilson | exact calls | ceiling at ≥ 97 % |",
      "|---|---|---|---|---|---|---|",
      ...rows,
    ].join("\n"),
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
