// Issue 39 item 6, the seventh recipe: the LoRA-tuned reader (bench/lora-probe.py) measured once on a sealed
// alert-triage set (protocol: bench/results/flywheel-sealed-12/protocol.md).
//
//   node --import tsx bench/lora-sealed.ts --suite TSV --a ADAPTER_DIR --b ADAPTER_DIR [--rows distilled,head]
//     [--conditions a,b] [--out DIR] [--python PATH] [--base GGUF]
//
// Renders the TSV with the example's renderer (examples/alert-triage/data/handwritten.mjs) into DIR/alert-suite.jsonl
// — a line it refuses stops the run before any model sees the set — then, per condition (its adapter directory holds
// the saved adapter and head, and beside it ADAPTER_DIR.gguf, the 0.5B with the adapter folded in):
// - `distilled` (the target row, what deputy runs): the alert-triage recipe's distilled model trained on the tuned
//   GGUF's hidden states (`trainAlertCondition`, as `deputy distill --encoder gguf=ADAPTER_DIR.gguf` trains it:
//   generated sets, counterfactual copies, the condition's decisions as --resolved), measured with
//   `deputy eval --suite … --delegate distilled=MODEL@T --json` at the condition's threshold T, exact calls;
// - `head`: the adapter's own classification head (`lora-probe.py --load DIR --eval … --scores …`) at the
//   condition's threshold for it; a label is the tool with its enum argument, and the renderer sets every other
//   argument from the facts and the alert's text, so there a label decides the call.
// Per row: the share of all alerts decided, precision with its 95 % Wilson interval, accuracy over all, and to say
// what falls short the share a threshold picked on the set itself could decide at ≥ 97 % ("after the fact").
// Writes DIR/summary.json (with the commit and whether the tree had uncommitted changes), DIR/cases.jsonl and
// DIR/table.md. Exits 0 whether the targets are met or not; bad arguments: one line, exit 2.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { basename, resolve } from "node:path";
import { parseArgs } from "node:util";
import { memoized, root } from "./alert-data.js";
import { measureOnSuite, setsBefore, trainAlertCondition } from "./flywheel-sealed-measure.js";
import { renderSealedSuite, writeSealedRun } from "./sealed-run.js";
import { gateRow, oracleShare, type ScoredCase } from "./flywheel-sealed-metrics.js";
import { GgufTextEncoder } from "../dist/distill/index.js";

/** The conditions, their thresholds (fixed out of set before the set is opened) and their targets. */
export const LORA_CONDITIONS = [
  {
    id: "a",
    label: "the team's first 90 decisions",
    sets: ["escalations"],
    threshold: { distilled: 0.85, head: 0.98 },
    target: { share: 0.5, precision: 0.97 },
  },
  {
    id: "b",
    label: "all 2,066 development decisions",
    sets: setsBefore("holdout12"),
    threshold: { distilled: 0.8, head: 0.85 },
    target: { share: 0.8, precision: 0.97 },
  },
] as const;
const ROWS = ["distilled", "head"] as const;

function fail(message: string): never {
  process.stderr.write(`bench:lora-sealed: ${message}\n`);
  process.exit(2);
}

let flags;
try {
  flags = parseArgs({
    options: {
      suite: { type: "string" },
      a: { type: "string" },
      b: { type: "string" },
      rows: { type: "string", default: ROWS.join(",") },
      conditions: { type: "string", default: "a,b" },
      out: { type: "string", default: `${root}.deputy/lora-sealed` },
      python: { type: "string", default: `${homedir()}/.cache/deputy-lora-venv/bin/python` },
      base: {
        type: "string",
        default: `${homedir()}/.cache/deputy/models/qwen2.5-coder-0.5b-instruct/0.9.0/qwen2.5-coder-0.5b-instruct.gguf`,
      },
    },
    strict: true,
    allowPositionals: false,
  }).values;
} catch (error) {
  fail((error as Error).message);
}
const suiteTsv = flags.suite ? resolve(flags.suite) : fail("give --suite TSV");
if (!existsSync(suiteTsv) || !suiteTsv.endsWith(".tsv"))
  fail(`expected a .tsv file that exists, got ${suiteTsv}`);
const conditions = flags.conditions.split(",") as ("a" | "b")[];
for (const id of conditions) if (id !== "a" && id !== "b") fail(`--conditions takes a, b, got ${id}`);
const adapters: Record<string, string> = {};
for (const id of conditions) {
  const dir = flags[id] ? resolve(flags[id]) : fail(`give --${id} ADAPTER_DIR`);
  if (!existsSync(`${dir}/deputy-probe.json`)) fail(`${dir} is not an adapter lora-probe.py --save wrote`);
  adapters[id] = dir;
}
const rows = flags.rows.split(",");
for (const r of rows)
  if (!(ROWS as readonly string[]).includes(r)) fail(`--rows takes ${ROWS.join(", ")}, got ${r}`);
if (rows.includes("distilled"))
  for (const dir of Object.values(adapters))
    if (!existsSync(`${dir}.gguf`)) fail(`${dir}.gguf (the adapter folded into the 0.5B) does not exist`);
for (const file of [flags.python, flags.base]) if (!existsSync(file)) fail(`${file} does not exist`);
const out = resolve(flags.out);

let rendered: ReturnType<typeof renderSealedSuite>;
try {
  rendered = renderSealedSuite(suiteTsv, out);
} catch (error) {
  fail(`${suiteTsv}: ${(error as Error).message}`);
}
const { text, records, suite } = rendered;

interface Score {
  id: string;
  label: number;
  predicted: number;
  confidence: number;
}
const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
const summaries: ReturnType<typeof row>[] = [];
const cases: unknown[] = [];
/** One row: what the gate decided of all the alerts, and where a threshold picked afterwards gets. */
function row(
  c: (typeof LORA_CONDITIONS)[number],
  kind: string,
  threshold: number,
  scored: readonly ScoredCase[],
  extra: Record<string, unknown> = {},
) {
  const g = gateRow(scored, (x) => x.decided);
  const precision = g.precision ?? 0;
  return {
    condition: c.id,
    label: c.label,
    row: kind,
    threshold,
    alerts: g.records,
    decided: g.decided,
    right: g.correct,
    share: g.share,
    precision,
    wilson95: g.wilson ?? [0, 0],
    accuracy: scored.filter((x) => x.exact).length / g.records,
    oracleShareAt97: oracleShare(scored, 0.97).share,
    target: c.target,
    met: g.share >= c.target.share && precision >= c.target.precision,
    ...extra,
  };
}

for (const c of LORA_CONDITIONS.filter((x) => conditions.includes(x.id))) {
  const dir = adapters[c.id]!;
  if (rows.includes("distilled")) {
    process.stderr.write(`(${c.id}) distilled: training on ${c.label} with ${basename(dir)}.gguf\n`);
    const real = await GgufTextEncoder.open(`${dir}.gguf`);
    try {
      const encoder = memoized(real);
      const trained = await trainAlertCondition(c.sets, `${out}/alert-${c.id}`, encoder);
      const m = await measureOnSuite(trained.modelFile, suite, encoder, {
        minConfidence: c.threshold.distilled,
      });
      if (m.disagreement) process.stderr.write(`warning: (${c.id}) ${m.disagreement}\n`);
      if (m.cases.filter((x) => x.decided).length !== m.level.decided)
        fail(`(${c.id}) the in-process chain decided otherwise than deputy eval (${m.level.decided})`);
      summaries.push(
        row(c, "distilled", c.threshold.distilled, m.cases, {
          ownMinConfidence: trained.minConfidence,
          encoderSha256: real.info.sha256,
          counts: trained.counts,
          deputyEval: m.level,
        }),
      );
      for (const x of m.cases) cases.push({ condition: c.id, row: "distilled", ...x.record });
    } finally {
      await real.close();
    }
  }
  if (rows.includes("head")) {
    const scoresFile = `${out}/scores-${c.id}.jsonl`;
    const run = spawnSync(
      flags.python,
      [
        `${root}bench/lora-probe.py`,
        "--base",
        flags.base,
        "--load",
        dir,
        "--eval",
        suite,
        "--scores",
        scoresFile,
      ],
      { stdio: ["ignore", "inherit", "inherit"] },
    );
    if (run.status !== 0) fail(`lora-probe.py exited ${run.status} for (${c.id})`);
    const scores = readFileSync(scoresFile, "utf8")
      .split("\n")
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as Score);
    if (scores.length !== records.length)
      fail(`(${c.id}) scored ${scores.length} of ${records.length} alerts`);
    const scored = scores.map((s) => ({
      confidence: s.confidence,
      exact: s.predicted === s.label,
      decided: s.confidence >= c.threshold.head,
      eligible: true,
    }));
    summaries.push(row(c, "head", c.threshold.head, scored));
    for (const s of scores)
      cases.push({ condition: c.id, row: "head", ...s, decided: s.confidence >= c.threshold.head });
  }
}

const lines = summaries.map(
  (s) =>
    `| (${s.condition}) ${s.label} | ${s.row} | ≥ ${s.threshold} | **${pct(s.share)}** (${s.decided} of ${s.alerts}) | **${pct(s.precision)}** [${pct(s.wilson95[0])}, ${pct(s.wilson95[1])}] (${s.decided - s.right} wrong) | ${pct(s.accuracy)} | ${pct(s.oracleShareAt97)} | ≥ ${pct(s.target.share)} at ≥ ${pct(s.target.precision)}: ${s.row === "head" ? "not the target row" : s.met ? "**met**" : "not met"} |`,
);
const table = [
  "| condition | level | threshold | decided | precision [95 % Wilson] | right of all | after the fact at ≥ 97 % | target |",
  "|---|---|---|---|---|---|---|---|",
  ...lines,
].join("\n");
writeSealedRun(out, { tsv: suiteTsv, text, alerts: records.length, conditions: summaries, cases }, table);
