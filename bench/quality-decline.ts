/**
 * Declining on BFCL, side by side: for each records file (quality-run.ts), per category group — irrelevance
 * (irrelevance + live_irrelevance: the share declined) and calls (simple + multiple: the share exactly right) —
 * on the cases every file has, so the columns compare the same questions. Files with `declineProbability`
 * (LocalDelegate, `--decline-threshold 1`) are also read at each threshold of `--thresholds`: a case declines
 * when its probability is at least the threshold, else keeps its greedy answer (exact for thresholds <= 0.5,
 * where greedy never declines below the threshold).
 *
 *   node --import tsx bench/quality-decline.ts today=a.jsonl new=b.jsonl free-form=c.jsonl [--thresholds 0.05,0.1,0.2]
 */
import { readFileSync } from "node:fs";

interface Row {
  id: string;
  category: string;
  outcome: string;
  name?: string | null;
  correct: boolean;
  latencyMs: number;
  declineProbability?: number;
}

const args = process.argv.slice(2);
const at = args.indexOf("--thresholds");
const thresholds = at >= 0 ? args[at + 1]!.split(",").map(Number) : [0.05, 0.1, 0.15, 0.2, 0.3];
const files = args
  .filter((a, i) => a.includes("=") && i !== at + 1)
  .map((a) => {
    const [label, path] = a.split("=") as [string, string];
    const rows = readFileSync(path, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Row);
    return { label, rows: new Map(rows.map((r) => [r.id, r])) };
  });
const shared = [...files[0]!.rows.keys()].filter((id) => files.every((f) => f.rows.has(id)));
const irrelevant = (r: Row) => r.category.includes("irrelevance");

/** Declines on irrelevance and exact calls on simple + multiple, as "share (k/n)". */
function summary(rows: Row[], decide: (r: Row) => { declined: boolean; correct: boolean }) {
  const irr = rows.filter(irrelevant);
  const calls = rows.filter((r) => !irrelevant(r));
  const declined = irr.filter((r) => decide(r).declined).length;
  const right = calls.filter((r) => decide(r).correct).length;
  const callDeclines = calls.filter((r) => decide(r).declined).length;
  const pct = (k: number, n: number) => (n === 0 ? "–" : `${Math.round((100 * k) / n)} % (${k}/${n})`);
  return { irrelevance: pct(declined, irr.length), calls: pct(right, calls.length), callDeclines };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
console.log(`${shared.length} cases in every file\n`);
console.log("| way | irrelevance declined | simple + multiple exact | calls declined | median latency |");
console.log("|---|---|---|---|---|");
for (const f of files) {
  const rows = shared.map((id) => f.rows.get(id)!);
  const plain = summary(rows, (r) => ({
    declined: r.outcome === "proposed" && r.name === null,
    correct: r.correct,
  }));
  const ms = median(rows.map((r) => r.latencyMs));
  console.log(
    `| ${f.label} | ${plain.irrelevance} | ${plain.calls} | ${plain.callDeclines} | ${(ms / 1000).toFixed(1)} s |`,
  );
  if (!rows.some((r) => r.declineProbability !== undefined)) continue;
  for (const t of thresholds) {
    const s = summary(rows, (r) => {
      const declined = r.outcome === "proposed" && (r.name === null || (r.declineProbability ?? 0) >= t);
      return { declined, correct: irrelevant(r) ? declined : !declined && r.correct };
    });
    console.log(
      `| ${f.label}, declineThreshold ${t} | ${s.irrelevance} | ${s.calls} | ${s.callDeclines} | |`,
    );
  }
}
