// Issue 39 item 6, the eighth recipe: deputy's distilled level deciding by its tuned reader's own label head
// (`deputy learn --tune`'s reader: bench/reader-tune.ts), measured once on a sealed alert-triage set (protocol:
// bench/results/flywheel-sealed-13/protocol.md).
//
//   node --import tsx bench/reader-sealed.ts --suite TSV --a MODEL.json --b MODEL.json [--conditions a,b]
//     [--out DIR]
//
// Renders the TSV with the example's renderer (examples/alert-triage/data/handwritten.mjs) into DIR/alert-suite.jsonl
// — a line it refuses stops the run before any model sees the set — then, per condition, measures the level the
// protocol fixed (bench/reader-level.ts wrote it, on the reader bench/reader-tune.ts wrote, whose head is the
// level's class decision; checked: the model has a reader head and its reader file has the recorded sha256) with
// `deputy eval --suite … --delegate distilled=MODEL@T --json` at the condition's threshold T: exact calls (canonical JSON of the tool and every argument). Per row: the share of
// all alerts decided, precision with its 95 % Wilson interval, exact calls of all, how many decided calls had the
// head's label right (so a wrong call says whether the head or the copied arguments were wrong), and the share a
// threshold picked on the set itself could decide at ≥ 97 % ("after the fact"). Writes DIR/summary.json (with the
// commit and whether the tree had uncommitted changes), DIR/cases.jsonl and DIR/table.md. Exits 0 whether the
// targets are met or not; bad arguments: one line, exit 2.
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { basename, resolve } from "node:path";
import { parseArgs } from "node:util";
import { root } from "./alert-data.js";
import { measureOnSuite, setsBefore } from "./flywheel-sealed-measure.js";
import { renderSealedSuite, writeSealedRun } from "./sealed-run.js";
import { gateRow, oracleShare, type ScoredCase } from "./flywheel-sealed-metrics.js";
import { GgufTextEncoder, loadModelFile } from "../dist/distill/index.js";

/** The conditions, their thresholds (fixed out of set before the set is opened) and their targets. */
export const READER_CONDITIONS = [
  {
    id: "a",
    label: "the team's first 90 decisions",
    threshold: 0.97,
    target: { share: 0.5, precision: 0.97 },
  },
  {
    id: "b",
    label: `all ${setsBefore("holdout13").length} development decision sets`,
    threshold: 0.85,
    target: { share: 0.8, precision: 0.97 },
  },
] as const;

function fail(message: string): never {
  process.stderr.write(`bench:reader-sealed: ${message}\n`);
  process.exit(2);
}

let flags;
try {
  flags = parseArgs({
    options: {
      suite: { type: "string" },
      a: { type: "string" },
      b: { type: "string" },
      conditions: { type: "string", default: "a,b" },
      out: { type: "string", default: `${root}.deputy/reader-sealed` },
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
const conditions = flags.conditions.split(",");
for (const id of conditions) if (id !== "a" && id !== "b") fail(`--conditions takes a, b, got ${id}`);
const models: Record<string, string> = {};
for (const id of conditions) {
  const file = flags[id as "a" | "b"] ? resolve(flags[id as "a" | "b"]!) : fail(`give --${id} MODEL.json`);
  if (!existsSync(file)) fail(`${file} does not exist`);
  const model = loadModelFile(file);
  if (!model.readerHead || !model.encoder?.path)
    fail(`${file} is not a level with a reader head (bench/reader-level.ts writes one)`);
  if (!existsSync(model.encoder.path)) fail(`${file}'s reader ${model.encoder.path} is not there`);
  models[id] = file;
}
const out = resolve(flags.out);

let rendered: ReturnType<typeof renderSealedSuite>;
try {
  rendered = renderSealedSuite(suiteTsv, out);
} catch (error) {
  fail(`${suiteTsv}: ${(error as Error).message}`);
}
const { text, records, suite } = rendered;

const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
const summaries: Record<string, unknown>[] = [];
const cases: unknown[] = [];
for (const c of READER_CONDITIONS.filter((x) => conditions.includes(x.id))) {
  const file = models[c.id]!;
  const model = loadModelFile(file);
  const head = model.readerHead!;
  const readerFile = model.encoder!.path!;
  process.stderr.write(`(${c.id}) ${basename(file)} on ${basename(readerFile)}\n`);
  const real = await GgufTextEncoder.open(readerFile);
  try {
    if (real.info.sha256 !== model.encoder!.sha256)
      fail(`(${c.id}) ${readerFile} is not the reader ${file} records`);
    const encoder = real;
    const m = await measureOnSuite(file, suite, encoder, { minConfidence: c.threshold });
    if (m.disagreement) process.stderr.write(`warning: (${c.id}) ${m.disagreement}\n`);
    if (m.cases.filter((x) => x.decided).length !== m.level.decided)
      fail(`(${c.id}) the in-process chain decided otherwise than deputy eval (${m.level.decided})`);
    // The head's label of a call: its tool and the arguments the head decides.
    const labelOf = (call: { name: string | null; arguments?: Record<string, unknown> } | null) => {
      if (!call) return "";
      const keys = new Set(
        head.labels.filter((l) => l.name === call.name).flatMap((l) => Object.keys(l.arguments)),
      );
      const args = Object.entries(call.arguments ?? {}).filter(([k]) => keys.has(k));
      return JSON.stringify([call.name, args.sort(([a], [b]) => a.localeCompare(b))]);
    };
    const scored: ScoredCase[] = m.cases;
    const g = gateRow(scored, (x) => x.decided);
    const decidedRecords = m.cases.filter((x) => x.decided).map((x) => x.record);
    const labelRight = decidedRecords.filter(
      (r) => labelOf(r.proposal as never) === labelOf(r.person as never),
    ).length;
    const reader = JSON.parse(readFileSync(readerFile.replace(/\.gguf$/, ".json"), "utf8")) as Record<
      string,
      unknown
    >;
    const precision = g.precision ?? 0;
    summaries.push({
      condition: c.id,
      label: c.label,
      threshold: c.threshold,
      alerts: g.records,
      decided: g.decided,
      right: g.correct,
      share: g.share,
      precision,
      wilson95: g.wilson ?? [0, 0],
      decidedLabelRight: labelRight,
      accuracy: scored.filter((x) => x.exact).length / g.records,
      oracleShareAt97: oracleShare(scored, 0.97).share,
      target: c.target,
      met: g.share >= c.target.share && precision >= c.target.precision,
      model: { file: basename(file), sha256: createHash("sha256").update(readFileSync(file)).digest("hex") },
      reader: {
        file: basename(readerFile),
        sha256: real.info.sha256,
        examples: reader["examples"],
        steps: reader["steps"],
        headCheck: reader["headCheck"],
      },
      deputyEval: m.level,
    });
    for (const x of m.cases) cases.push({ condition: c.id, ...x.record });
  } finally {
    await real.close();
  }
}

type Row = {
  condition: string;
  label: string;
  threshold: number;
  alerts: number;
  decided: number;
  right: number;
  share: number;
  precision: number;
  wilson95: [number, number];
  decidedLabelRight: number;
  accuracy: number;
  oracleShareAt97: number;
  target: { share: number; precision: number };
  met: boolean;
};
const lines = (summaries as Row[]).map(
  (s) =>
    `| (${s.condition}) ${s.label} | ≥ ${s.threshold} | **${pct(s.share)}** (${s.decided} of ${s.alerts}) | **${pct(s.precision)}** [${pct(s.wilson95[0])}, ${pct(s.wilson95[1])}] (${s.decided - s.right} wrong; label right in ${s.decidedLabelRight}) | ${pct(s.accuracy)} | ${pct(s.oracleShareAt97)} | ≥ ${pct(s.target.share)} at ≥ ${pct(s.target.precision)}: ${s.met ? "**met**" : "not met"} |`,
);
const table = [
  "| condition | threshold | decided | precision [95 % Wilson] | right of all | after the fact at ≥ 97 % | target |",
  "|---|---|---|---|---|---|---|",
  ...lines,
].join("\n");
writeSealedRun(out, { tsv: suiteTsv, text, alerts: records.length, conditions: summaries, cases }, table);
