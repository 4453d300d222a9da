// What the LoRA-reader benches share (bench/lora-sealed.ts, lora-dev.ts, reader-sealed.ts, reader-level.ts):
// rendering a sealed set once, writing a run's record with the commit it ran on, and scoring development sets.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename } from "node:path";
import { root } from "./alert-data.js";
import { DistilledDelegate, type DistilledModelData } from "../dist/distill/index.js";
import type { TextEncoder } from "../dist/distill/text-encoder.js";
import { evaluateChain, readDecisionSuite, type ChainAnswer } from "../dist/eval/index.js";
import { renderAlertTsv } from "../examples/alert-triage/data/handwritten.mjs";

/** A sealed set rendered by the example's renderer into `out/alert-suite.jsonl` (a line it refuses throws). */
export function renderSealedSuite(
  tsv: string,
  out: string,
): { text: string; records: unknown[]; suite: string } {
  const text = readFileSync(tsv, "utf8");
  const records: unknown[] = renderAlertTsv(text, basename(tsv, ".tsv"));
  mkdirSync(out, { recursive: true });
  const suite = `${out}/alert-suite.jsonl`;
  writeFileSync(suite, records.map((r) => JSON.stringify(r)).join("\n") + "\n");
  process.stderr.write(`rendered ${records.length} alerts\n`);
  return { text, records, suite };
}

/**
 * Writes a sealed run's `summary.json` (with the commit and whether the tree had uncommitted changes),
 * `cases.jsonl` and `table.md`, and prints the table.
 */
export function writeSealedRun(
  out: string,
  run: { tsv: string; text: string; alerts: number; conditions: unknown[]; cases: unknown[] },
  table: string,
): void {
  const git = (...args: string[]) => execFileSync("git", args, { cwd: root, encoding: "utf8" }).trim();
  const summary = {
    commit: git("rev-parse", "HEAD"),
    uncommittedChanges: git("status", "--porcelain", "--untracked-files=no") !== "",
    suite: {
      file: basename(run.tsv),
      sha256: createHash("sha256").update(run.text).digest("hex"),
      alerts: run.alerts,
    },
    conditions: run.conditions,
  };
  writeFileSync(`${out}/summary.json`, JSON.stringify(summary, null, 2) + "\n");
  writeFileSync(`${out}/cases.jsonl`, run.cases.map((c) => JSON.stringify(c)).join("\n") + "\n");
  writeFileSync(`${out}/table.md`, table + "\n");
  process.stdout.write(table + "\n");
  if (summary.uncommittedChanges) process.stderr.write("warning: the tree has uncommitted changes\n");
}

const CALL_VERDICTS = new Set(["accepted", "low_confidence", "unscored"]);

/** One development case: its set, the level's confidence, whether the call was exact, and whether a threshold could decide it. */
export interface DevRow {
  set: string;
  confidence: number;
  exact: boolean;
  eligible: boolean;
}

/** Each suite's answers from the level gated at `minConfidence`, as rows (and the answers with their case). */
export async function scoreSuites(
  model: DistilledModelData,
  encoder: TextEncoder,
  suites: readonly string[],
  minConfidence: number,
  extra: (a: ChainAnswer, call: unknown) => Record<string, unknown> = () => ({}),
): Promise<(DevRow & Record<string, unknown>)[]> {
  const rows: (DevRow & Record<string, unknown>)[] = [];
  for (const file of suites) {
    const suite = readDecisionSuite(file);
    const delegate = new DistilledDelegate({ model, encoder });
    const answers: ChainAnswer[] = [];
    try {
      await evaluateChain([{ delegate, minConfidence }], suite.cases, {
        onProposal: (a) => answers.push(a),
      });
    } finally {
      await delegate.close();
    }
    const set = basename(file, ".jsonl");
    for (const a of answers)
      rows.push({
        set,
        confidence: a.confidence ?? 0,
        exact: a.correct,
        eligible: CALL_VERDICTS.has(a.verdict) && a.proposal !== undefined && a.proposal.name !== null,
        ...extra(a, suite.cases[a.item]!.call),
      });
  }
  return rows;
}

/**
 * A table per set and pooled: exact calls, any extra share columns, then at each threshold the share decided at
 * precision (wrong calls).
 */
export function devTable(
  rows: readonly DevRow[],
  thresholds: readonly number[],
  heading: (t: number, i: number) => string,
  columns: Record<string, (cases: readonly DevRow[]) => number> = {},
  cell: (share: string, precision: string, wrong: number) => string = (s, p, w) => `${s} at ${p} (${w})`,
): string {
  const pct = (x: number) => `${(100 * x).toFixed(1)}`;
  const line = (name: string, cases: readonly DevRow[]) => {
    const cells = thresholds.map((t) => {
      const decided = cases.filter((c) => c.eligible && c.confidence >= t);
      const right = decided.filter((c) => c.exact).length;
      return cell(
        pct(decided.length / cases.length),
        decided.length ? pct(right / decided.length) : "–",
        decided.length - right,
      );
    });
    const exact = cases.filter((c) => c.exact).length / cases.length;
    const more = Object.values(columns).map((f) => pct(f(cases)));
    return `| ${name} | ${cases.length} | ${pct(exact)} | ${[...more, ...cells].join(" | ")} |`;
  };
  const names = Object.keys(columns);
  return [
    `| set | n | exact | ${[...names, ...thresholds.map(heading)].join(" | ")} |`,
    `|---|---|---|${[...names, ...thresholds].map(() => "---").join("|")}|`,
    ...[...new Set(rows.map((r) => r.set))].map((s) =>
      line(
        s,
        rows.filter((r) => r.set === s),
      ),
    ),
    line("pooled", rows),
  ].join("\n");
}
