/**
 * In-context examples on a real model (issue 23, item 4): proposes a call for each alert of an alert-triage set
 * with k = 0 (today) and with the k decisions of the training set most like it shown as worked examples
 * (`withExamples`), and appends one JSON line per (k, alert) to `--out` (resumable): the call, whether it is
 * exactly the team's, the right tool, the answer confidence and the latency. `--report` prints the table
 * (exact-call accuracy, right tool, coverage at ≥ 97 % precision, median latency) from such a file.
 *
 *   node --import tsx bench/examples-run.ts --model FILE.gguf --out runs.jsonl [--set holdout2] [--k 0,4] [--limit 20]
 *     [--max-input-chars 4000]   (the backend's bound on task + examples; LocalDelegate's default, 1000, fits ~2)
 *     [--indices 3,5,8]          (only these alerts of the set, e.g. those the distilled level passes on)
 *     [--pool train]             (the sets the examples are drawn from, comma-separated; the set decided is never one)
 *   node --import tsx bench/examples-run.ts --report runs.jsonl
 */
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { LocalDelegate } from "../src/delegate/backends/local-delegate.js";
import { exactMatch, examplesFromTraces } from "../src/distill/training-examples.js";
import { GgufTextEncoder } from "../src/distill/gguf-text-encoder.js";
import { withExamples } from "../src/distill/in-context-examples.js";
import { encoderModelForTests } from "../src/distill/encoder-model-path.js";
import { readTraces } from "../src/traces/read-traces.js";
import { DelegateBackendError } from "../src/errors/delegate-backend-error.js";
import type { Proposal } from "../src/delegate/protocol.js";

const { values } = parseArgs({
  options: {
    model: { type: "string" },
    out: { type: "string" },
    report: { type: "string" },
    set: { type: "string", default: "holdout2" },
    k: { type: "string", default: "0,4" },
    limit: { type: "string", default: "20" },
    threads: { type: "string", default: "1" },
    "max-input-chars": { type: "string", default: "4000" },
    pool: { type: "string", default: "train" },
    indices: { type: "string" },
  },
});

interface Row {
  k: number;
  maxInputChars?: number;
  pool?: string;
  set: string;
  index: number;
  exact: boolean;
  tool: boolean;
  declined: boolean;
  confidence: number | null;
  latencyMs: number;
  call: { name: string | null; arguments: Record<string, unknown> };
  label: { name: string | null; arguments: Record<string, unknown> };
  similarities?: number[];
  /** Set when the backend failed (no call): `declined` stays false, as it was no decline. */
  error?: string;
}

if (values.report) report(values.report);
else await run();

async function run(): Promise<void> {
  if (!values.model || !values.out) {
    console.error("usage: examples-run.ts --model FILE.gguf --out FILE [--set NAME] [--k 0,4] [--limit N]");
    process.exit(2);
  }
  const out = values.out;
  const data = new URL("../examples/alert-triage/data/", import.meta.url);
  const read = (name: string) =>
    examplesFromTraces(readTraces(new URL(`${name}.jsonl`, data).pathname).traces, "triage_items").examples;
  const poolSets = values.pool.split(",").filter(Boolean);
  if (poolSets.includes(values.set)) {
    console.error(`--pool must not hold the set being decided (${values.set})`);
    process.exit(2);
  }
  const pool = poolSets.flatMap(read);
  // A k = 0 row shows no examples, so it is the same whatever the pool: keyed without one, it runs once.
  const poolKey = (k: number) => (k === 0 ? "none" : poolSets.join("+"));
  const cases = read(values.set).slice(0, Number(values.limit));
  const only = values.indices ? new Set(values.indices.split(",").map(Number)) : undefined;
  if (only && [...only].some((i) => !Number.isInteger(i) || i < 0)) {
    console.error(`--indices must be alert indices like 3,5,8, got ${values.indices}`);
    process.exit(2);
  }
  const done = new Set(
    existsSync(out)
      ? readFileSync(out, "utf8")
          .split("\n")
          .filter(Boolean)
          .map((l) => {
            const r = JSON.parse(l) as Row;
            return `${r.set}:${r.k === 0 ? "none" : (r.pool ?? "train")}:${r.k}:${r.maxInputChars ?? 1000}:${r.index}`;
          })
      : [],
  );
  const maxInputChars = Number(values["max-input-chars"]);
  const local = new LocalDelegate({
    model: values.model,
    threads: Number(values.threads),
    seed: 1,
    maxInputChars,
  });
  const encoder = await GgufTextEncoder.open(encoderModelForTests());
  try {
    for (const k of values.k.split(",").map(Number)) {
      const delegate = withExamples(local, { source: { examples: pool }, encoder, k });
      for (const [index, c] of cases.entries()) {
        if (only && !only.has(index)) continue;
        if (done.has(`${values.set}:${poolKey(k)}:${k}:${maxInputChars}:${index}`)) continue;
        const started = performance.now();
        let p: Proposal;
        let error: string | undefined;
        try {
          p = await delegate.propose({
            instruction: c.instruction,
            facts: c.facts,
            tools: c.tools,
            context: { runId: "bench", nodeId: "triage_items", item: index },
          });
        } catch (cause) {
          // A backend failure (an answer that never ends, say) is an outcome the plan sees as such (its node's
          // on_reject takes over): recorded as no call, never a crash of the run.
          if (!DelegateBackendError.isInstance(cause)) throw cause;
          error = cause.message;
          p = {
            name: null,
            arguments: {},
            confidence: null,
            backend: delegate.name,
            latencyMs: performance.now() - started,
          };
        }
        const row: Row = {
          k,
          maxInputChars,
          ...(k === 0 ? {} : { pool: poolKey(k) }),
          set: values.set,
          index,
          exact: exactMatch(p, c.call),
          tool: p.name === c.call.name,
          declined: p.name === null && error === undefined,
          confidence: p.confidence,
          latencyMs: Math.round(performance.now() - started),
          call: { name: p.name, arguments: p.arguments },
          label: c.call,
          ...(p.examples ? { similarities: p.examples } : {}),
          ...(error ? { error } : {}),
        };
        appendFileSync(out, `${JSON.stringify(row)}\n`);
        console.error(
          `k=${k} #${index} exact=${row.exact} tool=${row.tool} conf=${p.confidence?.toFixed(3)} ${row.latencyMs} ms`,
        );
      }
    }
  } finally {
    await local.close();
    await encoder.close();
  }
}

function report(path: string): void {
  const rows = readFileSync(path, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Row);
  const groups = new Map<string, Row[]>();
  for (const r of rows) {
    const pool = r.k === 0 ? "" : `, from ${r.pool ?? "train"}`;
    const key = `${r.set} k=${r.k} (≤ ${r.maxInputChars ?? 1000} chars${pool})`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  console.log(
    "| set, k | n | exact call | right tool | coverage at ≥ 97 % precision (threshold) | median latency |",
  );
  console.log("|---|---|---|---|---|---|");
  for (const [key, g] of groups) {
    const exact = g.filter((r) => r.exact).length;
    const tool = g.filter((r) => r.tool).length;
    const { coverage, threshold } = coverageAt(g, 0.97);
    const latency = [...g.map((r) => r.latencyMs)].sort((a, b) => a - b)[Math.floor(g.length / 2)]!;
    console.log(
      `| ${key} | ${g.length} | ${exact} (${pct(exact, g.length)}) | ${tool} (${pct(tool, g.length)}) | ${pct(coverage, g.length)} (${threshold ?? "none"}) | ${(latency / 1000).toFixed(1)} s |`,
    );
  }
}

/** The most calls decided at ≥ `precision` exact, over confidence thresholds taken from the rows themselves. */
function coverageAt(rows: Row[], precision: number): { coverage: number; threshold: string | undefined } {
  const scored = rows
    .filter((r) => r.confidence !== null && !r.declined)
    .sort((a, b) => b.confidence! - a.confidence!);
  let best = 0;
  let threshold: string | undefined;
  let right = 0;
  scored.forEach((r, i) => {
    if (r.exact) right++;
    const next = scored[i + 1];
    if (next && next.confidence === r.confidence) return;
    if (right / (i + 1) >= precision && i + 1 > best) {
      best = i + 1;
      threshold = r.confidence!.toFixed(3);
    }
  });
  return { coverage: best, threshold };
}

function pct(n: number, of: number): string {
  return of === 0 ? "–" : `${Math.round((100 * n) / of)} %`;
}
