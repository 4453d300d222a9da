/**
 * Runs one backend over BFCL cases and appends one JSON line per case to `--out` (resumable: ids already in the
 * file are skipped), so a long evaluation on a slow machine loses nothing when stopped. The report
 * (`bench/quality-report.ts`) turns the files into docs/quality.md's tables and figure.
 *
 *   node --import tsx bench/quality-run.ts --backend local|llama-server|free-form --model FILE.gguf \
 *     --out results.jsonl [--suite test/fixtures/bfcl] [--limit 40] [--url http://127.0.0.1:8080] [--shard K/N]
 *
 * `--shard K/N` takes every N-th case from the K-th (0-based) of the interleaved list, so N processes on N cores
 * can share one `--out` file (each appends whole lines; the ids already there are skipped by all).
 *
 * Deterministic settings: greedy, one thread, fixed seed. Categories are interleaved so a partial run covers all.
 */
import { appendFileSync } from "node:fs";
import { parseArgs } from "node:util";
import type { ToolCallDelegate } from "../src/delegate/protocol.js";
import { LlamaServerDelegate } from "../src/delegate/backends/llama-server-delegate.js";
import { LocalDelegate } from "../src/delegate/backends/local-delegate.js";
import { FreeFormToolCallBaseline } from "../src/eval/free-form-baseline.js";
import { bfclCases, loadBfclSuite } from "../src/eval/bfcl-suite.js";
import { interleave, recordedIds } from "./quality-cases.js";
import { evaluateCase } from "../src/eval/evaluate-case.js";
import { startLlamaServer } from "../src/testing/llama-server.js";

const { values } = parseArgs({
  options: {
    backend: { type: "string" },
    model: { type: "string" },
    out: { type: "string" },
    suite: { type: "string", default: "test/fixtures/bfcl" },
    limit: { type: "string", default: "40" },
    url: { type: "string" },
    // Record each generated token's text and probabilities (local only), for fitting confidence methods.
    tokens: { type: "boolean", default: false },
    // LocalDelegate's declineThreshold: a number, or "off" (plain greedy). At 1 the decline probability is
    // recorded and greedy decides, so one run gives every threshold <= 0.5 offline (quality-decline.ts).
    "decline-threshold": { type: "string" },
    threads: { type: "string", default: "1" },
    shard: { type: "string", default: "0/1" },
  },
});
if (!values.backend || !values.model || !values.out) {
  console.error("usage: quality-run.ts --backend local|llama-server|free-form --model FILE --out FILE");
  process.exit(2);
}
const out = values.out;
const done = recordedIds(out);

const [shard, shards] = values.shard!.split("/").map(Number) as [number, number];
const cases = interleave(bfclCases(loadBfclSuite(values.suite!, { limit: Number(values.limit) }))).filter(
  (c, i) => i % shards === shard && !done.has(c.sample.id),
);
const server =
  values.backend !== "local" && !values.url
    ? await startLlamaServer({ model: values.model, threads: 1, parallel: 1, contextSize: 8192 })
    : undefined;
const url = values.url ?? server?.baseUrl ?? "";
// Stopping the run (kill PID) must not leave the server behind.
process.once("SIGTERM", () => void server?.stop().finally(() => process.exit(143)));
const common = { maxTools: 5, maxInputChars: 4000 };
let lastTokens: { piece: string; grammar: number; raw?: number }[] | undefined;
let lastDecline: number | undefined;
const declineFlag = values["decline-threshold"];
const declineThreshold =
  declineFlag === undefined
    ? {}
    : { declineThreshold: declineFlag === "off" ? (false as const) : Number(declineFlag) };
const delegate: ToolCallDelegate =
  values.backend === "local"
    ? new LocalDelegate({
        model: values.model,
        threads: Number(values.threads),
        seed: 1,
        tokenProbability: true,
        ...common,
        ...declineThreshold,
        // With the tokens recorded, `confidence` is the choice confidence and the answer confidence is computed
        // from the tokens (bench/confidence-methods.ts compares them).
        ...(values.tokens
          ? { confidenceMethod: "choice" as const, _internal: { onTokens: (t) => (lastTokens = t) } }
          : { _internal: { onDeclineProbability: (p) => (lastDecline = p) } }),
      })
    : values.backend === "llama-server"
      ? new LlamaServerDelegate({ baseUrl: url, timeoutMs: 900_000, ...common })
      : new FreeFormToolCallBaseline({ baseUrl: url, timeoutMs: 900_000, ...common });
try {
  for (const c of cases) {
    lastTokens = undefined;
    lastDecline = undefined;
    const record = await evaluateCase(delegate, c);
    const extra = values.tokens
      ? { tokens: lastTokens }
      : lastDecline !== undefined
        ? { declineProbability: lastDecline }
        : {};
    appendFileSync(out, JSON.stringify({ ...record, ...extra }) + "\n");
    console.error(`${record.id}\t${record.outcome}\t${record.correct}\t${record.latencyMs.toFixed(0)} ms`);
  }
} finally {
  await delegate.close();
  await server?.stop();
}
