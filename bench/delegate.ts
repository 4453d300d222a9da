/**
 * Delegate backend benchmark: proposal latency (p50/p95) and throughput of LocalDelegate (poolSize 1/2/4 ×
 * threads 1/2), LlamaServerDelegate (parallel slots 1/2/4 × threads 1/2) and a bare node-llama-cpp call of the
 * same prompt and grammar (deputy's overhead as a ratio), on the tiny model and on a random-weight model of
 * Qwen2.5-0.5B's shape (generated once into ~/.cache/deputy/models); plus prompt-prefix caching (first proposal
 * vs repeated ones with the same tools).
 *
 *   npx tsx bench/delegate.ts            # everything (~10 minutes on 2 cores, +3 the first time for the Qwen file)
 *   npx tsx bench/delegate.ts --quick    # tiny model only
 *   npx tsx bench/delegate.ts --qwen-only # the Qwen2.5-0.5B-shaped model only
 *   npx tsx bench/delegate.ts --real-only # the real Qwen2.5-Coder-0.5B-Instruct only (bash scripts/models.sh)
 *     (DEPUTY_BENCH_REAL_N=6 questions, DEPUTY_BENCH_REAL_POOLS=1,2 pool sizes and parallel slots)
 *   npx tsx bench/delegate.ts --paired-only # only deputy vs the bare call, side by side, on the real model
 *   npx tsx bench/delegate.ts --floor    # against the hardware's floor on real weights (bench/delegate-floor.ts)
 *
 * The full run ends with the real Qwen2.5-Coder-0.5B-Instruct weights that scripts/models.sh caches (skipped,
 * with a note, when they are not there).
 *
 * Speed lives here, never in tests.
 */
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { LlamaServerDelegate } from "../src/delegate/backends/llama-server-delegate.js";
import { LocalDelegate } from "../src/delegate/backends/local-delegate.js";
import { NODE_LLAMA_CPP_DIALECT, toGrammarSchema } from "../src/delegate/backends/grammar-schema.js";
import { bfclQuestion, bfclToToolSpec } from "../src/eval/bfcl.js";
import { buildPrompt } from "../src/runtime/tool-call-prompt.js";
import { buildProposalSchema } from "../src/delegate/proposal-schema.js";
import type { ProposeRequest, ToolCallDelegate } from "../src/delegate/protocol.js";
import {
  findLlamaServerBinary,
  findRealModel,
  startLlamaServer,
  writeTinyModel,
} from "../src/testing/index.js";
import { loadAllBfclSamples } from "../test/bfcl-fixtures.js";

if (process.argv.includes("--floor")) {
  // Proposals against the hardware's floor on real weights (bench/delegate-floor.ts); nothing else runs.
  const { floorBench } = await import("./delegate-floor.js");
  console.log(await floorBench());
  process.exit(0);
}
const quick = process.argv.includes("--quick");
const realOnly = process.argv.includes("--real-only");
// --paired-only: just deputy against the bare call, side by side, on the real model.
const pairedOnly = process.argv.includes("--paired-only");
const qwenOnly = process.argv.includes("--qwen-only") || realOnly || pairedOnly;

interface Row {
  model: string;
  backend: string;
  pool: number;
  threads: number;
  n: number;
  p50: number;
  p95: number;
  perSecond: number;
  errors: number;
}

const rows: Row[] = [];
const notes: string[] = [];

/** Requests over `sets` BFCL tool sets (≤ maxTools each), `perSet` questions each, in set order. */
function requests(sets: number, perSet: number, maxTools: number): ProposeRequest[] {
  const samples = loadAllBfclSamples().map((s) => s.sample);
  const out: ProposeRequest[] = [];
  for (let s = 0; s < sets; s++) {
    const sample = samples[(s * 37) % samples.length]!;
    const tools = sample.function.slice(0, maxTools).map(bfclToToolSpec);
    for (let q = 0; q < perSet; q++) {
      const asked = samples[(s * 37 + q * 11) % samples.length]!;
      out.push({ instruction: bfclQuestion(asked).slice(0, 300), facts: {}, tools });
    }
  }
  return out;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

/** Runs the requests `concurrency` at a time (after one warm-up proposal); records latency and throughput. */
async function measure(
  label: Omit<Row, "n" | "p50" | "p95" | "perSecond" | "errors">,
  run: (r: ProposeRequest) => Promise<unknown>,
  list: ProposeRequest[],
  concurrency: number,
): Promise<void> {
  await run(list[0]!).catch(() => undefined);
  const latencies: number[] = [];
  let errors = 0;
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    for (let i = next++; i < list.length; i = next++) {
      const t = performance.now();
      try {
        await run(list[i]!);
      } catch {
        errors++;
      }
      latencies.push(performance.now() - t);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const wall = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const row = {
    ...label,
    n: list.length,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    perSecond: list.length / wall,
    errors,
  };
  rows.push(row);
  console.error(
    `  ${row.backend} pool=${row.pool} threads=${row.threads}: p50 ${row.p50.toFixed(0)} ms, ` +
      `p95 ${row.p95.toFixed(0)} ms, ${row.perSecond.toFixed(2)}/s, ${row.errors}/${row.n} errors`,
  );
}

/** node-llama-cpp directly: the same chat-formatted prompt and grammar, no deputy code in between. */
async function bareNodeLlamaCpp(model: string, threads: number, maxTokens: number) {
  const m = await import("node-llama-cpp");
  const llama = await m.getLlama({ gpu: false, build: "never", logLevel: m.LlamaLogLevel.error });
  const loaded = await llama.loadModel({ modelPath: model });
  const context = await loaded.createContext({ contextSize: 8192, threads });
  const sequence = context.getSequence();
  const wrapper = m.resolveChatWrapper(loaded);
  const completion = new m.LlamaCompletion({ contextSequence: sequence });
  const grammars = new Map<string, Promise<InstanceType<typeof m.LlamaGrammar>>>();
  const run = async (r: ProposeRequest) => {
    const schema = buildProposalSchema(r.tools);
    const key = JSON.stringify(schema);
    if (!grammars.has(key)) {
      const { schema: gbnf } = toGrammarSchema(schema, NODE_LLAMA_CPP_DIALECT);
      grammars.set(key, llama.createGrammarForJsonSchema(gbnf as never));
    }
    const { system, user } = buildPrompt(r);
    const { contextText } = wrapper.generateContextState({
      chatHistory: [
        { type: "system", text: system },
        { type: "user", text: user },
        { type: "model", response: [] },
      ],
    });
    const text = await completion.generateCompletion(contextText.tokenize(loaded.tokenizer), {
      grammar: await grammars.get(key)!,
      maxTokens,
      temperature: 0,
    });
    JSON.parse(text);
  };
  return { run, close: async () => (await context.dispose(), await loaded.dispose()) };
}

/**
 * deputy's overhead measured side by side: for each request LocalDelegate (default confidence), LocalDelegate
 * without confidence and the bare node-llama-cpp call run back to back in a rotating order, so load drift falls
 * on all three alike. Wall and CPU time (process.cpuUsage: llama.cpp's threads run in this process) are summed
 * over the requests; the ratios are deputy's sums over the bare call's.
 */
async function pairedOverhead(model: string, label: string, list: ProposeRequest[], maxOutputTokens: number) {
  const withConfidence = new LocalDelegate({ model, threads: 1, maxOutputTokens });
  const noConfidence = new LocalDelegate({ model, threads: 1, maxOutputTokens, confidence: false });
  const bare = await bareNodeLlamaCpp(model, 1, maxOutputTokens);
  const ways: [string, (r: ProposeRequest) => Promise<unknown>][] = [
    ["LocalDelegate", (r) => withConfidence.propose(r)],
    ["LocalDelegate (confidence off)", (r) => noConfidence.propose(r)],
    ["bare node-llama-cpp", bare.run],
  ];
  const totals = new Map(ways.map(([name]) => [name, { wall: 0, cpu: 0 }]));
  for (const [, run] of ways) await run(list[0]!); // warm-up: model, grammar, prompt prefix
  for (let i = 0; i < list.length; i++) {
    for (let k = 0; k < ways.length; k++) {
      const [name, run] = ways[(i + k) % ways.length]!;
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      await run(list[i]!);
      const wall = performance.now() - t0;
      const cpu = process.cpuUsage(cpu0);
      const t = totals.get(name)!;
      t.wall += wall;
      t.cpu += (cpu.user + cpu.system) / 1000;
    }
  }
  await withConfidence.close();
  await noConfidence.close();
  await bare.close();
  const base = totals.get("bare node-llama-cpp")!;
  for (const [name, t] of totals) {
    console.error(`  side by side: ${name} ${t.wall.toFixed(0)} ms wall, ${t.cpu.toFixed(0)} ms CPU in all`);
    notes.push(
      `${label} side by side (${list.length} requests, rotating order): ${name} ${(t.wall / list.length).toFixed(0)} ms wall, ` +
        `${(t.cpu / list.length).toFixed(0)} ms CPU a proposal` +
        (name === "bare node-llama-cpp"
          ? ""
          : ` → ${(t.wall / base.wall).toFixed(3)}× wall, ${(t.cpu / base.cpu).toFixed(3)}× CPU of the bare call`),
    );
  }
}

async function prefixCaching(
  model: string,
  name: string,
  delegate: ToolCallDelegate,
  list: ProposeRequest[],
) {
  // Wall time around each call: a random-weight model of a real shape runs every answer into the output cap,
  // which the backend reports as an error after generating the capped tokens — the time is still what a
  // proposal of that many output tokens costs, and the prompt part of it is what a cached prefix saves.
  const timed = async (r: ProposeRequest) => {
    const t0 = performance.now();
    const p = await delegate.propose(r).catch(() => undefined);
    return { ms: performance.now() - t0, p };
  };
  const first = await timed(list[0]!);
  const again: number[] = [];
  let cached = 0;
  for (const r of list.slice(1)) {
    const { ms, p } = await timed(r);
    again.push(ms);
    if (p) cached = p.usage?.cachedInputTokens ?? 0;
  }
  again.sort((a, b) => a - b);
  notes.push(
    `${model} ${name}: first proposal ${first.ms.toFixed(0)} ms` +
      (first.p
        ? ` (${first.p.usage?.inputTokens ?? "?"} prompt tokens, ${first.p.usage?.cachedInputTokens ?? 0} cached)`
        : "") +
      `; same tools again: p50 ${percentile(again, 50).toFixed(0)} ms` +
      (cached ? ` (${cached} of the prompt tokens cached)` : "") +
      ` → ${(first.ms / percentile(again, 50)).toFixed(1)}× faster`,
  );
}

interface Grid {
  pools: number[];
  threads: number[];
  /** Tool sets × questions per set. */
  sets: number;
  perSet: number;
  /** Most candidate tools per request (fewer keeps a big model's prompt short). */
  maxTools: number;
  maxOutputTokens: number;
  /** Output cap for the prefix-caching runs (default: maxOutputTokens). */
  prefixOutputTokens?: number;
  prefixCaching: boolean;
  /** Also measure deputy against the bare call side by side (pairedOverhead). */
  paired?: boolean;
}

async function benchModel(model: string, label: string, grid: Grid) {
  const all = requests(grid.sets, grid.perSet, grid.maxTools);
  const sameTools = requests(1, 4, grid.maxTools);
  const maxOutputTokens = grid.maxOutputTokens;
  console.error(`${label}: ${model}`);
  if (grid.paired) await pairedOverhead(model, label, all, maxOutputTokens);
  if (pairedOnly) return;
  for (const threads of grid.threads) {
    // Two threads spin against each other on 2 cores with small models (tens of times slower): a short sample.
    const list = threads > 1 && grid.pools.length > 1 ? all.slice(0, 4) : all;
    for (const pool of grid.pools) {
      const delegate = new LocalDelegate({ model, poolSize: pool, threads, maxOutputTokens });
      await measure(
        { model: label, backend: "LocalDelegate", pool, threads },
        (r) => delegate.propose(r),
        list,
        pool,
      );
      if (grid.prefixCaching && pool === 1 && threads === grid.threads[0]) {
        // Outputs as short as a real answer (a random model never closes its JSON by itself).
        const cachedRun = new LocalDelegate({
          model,
          poolSize: 1,
          threads,
          maxOutputTokens: grid.prefixOutputTokens ?? maxOutputTokens,
        });
        await prefixCaching(label, "LocalDelegate", cachedRun, sameTools);
        await cachedRun.close();
      }
      await delegate.close();
    }
    const bare = await bareNodeLlamaCpp(model, threads, maxOutputTokens);
    await measure({ model: label, backend: "bare node-llama-cpp", pool: 1, threads }, bare.run, list, 1);
    await bare.close();
  }
  if (!findLlamaServerBinary()) {
    notes.push(
      "llama-server: binary missing (run `bash scripts/llama-server.sh`), LlamaServerDelegate not measured",
    );
    return;
  }
  for (const threads of grid.threads) {
    const list = all;
    for (const pool of grid.pools) {
      const server = await startLlamaServer({
        model,
        threads,
        parallel: pool,
        contextSize: 8192 * pool,
      }).catch((error: unknown) => {
        notes.push(
          `${label} llama-server threads=${threads} parallel=${pool}: ${(error as Error).message.split("\n")[0]}`,
        );
        return undefined;
      });
      if (!server) continue;
      try {
        const delegate = new LlamaServerDelegate({
          baseUrl: server.baseUrl,
          timeoutMs: 300_000,
          maxOutputTokens,
        });
        await measure(
          { model: label, backend: "LlamaServerDelegate", pool, threads },
          (r) => delegate.propose(r),
          list,
          pool,
        );
        if (pool === 1 && threads === grid.threads[0]) {
          if (grid.prefixCaching) await prefixCaching(label, "LlamaServerDelegate", delegate, sameTools);
          const plain = new LlamaServerDelegate({
            baseUrl: server.baseUrl,
            timeoutMs: 300_000,
            confidence: false,
            maxOutputTokens,
          });
          await measure(
            { model: label, backend: "LlamaServer (no logprobs)", pool, threads },
            (r) => plain.propose(r),
            list,
            1,
          );
        }
      } finally {
        await server.stop();
      }
    }
  }
}

function qwenModel(): string {
  const dir = join(process.env.DEPUTY_CACHE ?? join(homedir(), ".cache", "deputy"), "models");
  const path = join(dir, "qwen2.5-0.5b-shape-seed1.gguf");
  if (!existsSync(path)) {
    mkdirSync(dir, { recursive: true });
    console.error(`writing ${path} (once; a few minutes)…`);
    const tmp = `${path}.${process.pid}.tmp`;
    writeTinyModel(tmp, { shape: "qwen2.5-0.5b", seed: 1 });
    renameSync(tmp, path);
  }
  return path;
}

function table(): string {
  const header = [
    "model",
    "backend",
    "pool",
    "threads",
    "n",
    "p50 ms",
    "p95 ms",
    "proposals/s",
    "errors",
    "vs bare",
  ];
  const bare = new Map(
    rows.filter((r) => r.backend === "bare node-llama-cpp").map((r) => [`${r.model}/${r.threads}`, r.p50]),
  );
  const body = rows.map((r) => {
    const b = bare.get(`${r.model}/${r.threads}`);
    return [
      r.model,
      r.backend,
      String(r.pool),
      String(r.threads),
      String(r.n),
      r.p50.toFixed(0),
      r.p95.toFixed(0),
      r.perSecond.toFixed(2),
      String(r.errors),
      b && r.backend !== "bare node-llama-cpp" ? `${(r.p50 / b).toFixed(2)}×` : "",
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...body.map(line)].join("\n");
}

const dir = mkdtempSync(join(tmpdir(), "deputy-bench-"));
try {
  const tiny = join(dir, "tiny.gguf");
  writeTinyModel(tiny, { seed: 1 });
  if (!qwenOnly)
    await benchModel(tiny, "tiny", {
      pools: [1, 2, 4],
      threads: [1, 2],
      sets: 2,
      perSet: 8,
      maxTools: 5,
      maxOutputTokens: 512,
      prefixCaching: true,
    });
  if (!quick && !realOnly && !pairedOnly) {
    // A 0.5B model on 2 cores costs seconds per proposal: one short tool set, four questions, the whole grid.
    await benchModel(qwenModel(), "qwen2.5-0.5b-shape", {
      pools: [1, 2, 4],
      threads: [1, 2],
      sets: 1,
      perSet: 4,
      maxTools: 2,
      maxOutputTokens: 96,
      // The prompt costs seconds here, so this is where a cached prefix shows; outputs capped at 24 tokens, the
      // length of a short real answer.
      prefixCaching: true,
      prefixOutputTokens: 24,
    });
  }
  const real = findRealModel("qwen2.5-coder-0.5b-instruct");
  if (!quick && real) {
    // Real weights answer in ~20–40 tokens and stop by themselves: one tool set of two, four questions.
    // Knobs: DEPUTY_BENCH_REAL_N questions (default 6), DEPUTY_BENCH_REAL_POOLS pool sizes / parallel slots.
    await benchModel(real, "qwen2.5-coder-0.5b (real)", {
      pools: (process.env.DEPUTY_BENCH_REAL_POOLS ?? "1,2").split(",").map(Number),
      threads: [1],
      sets: 1,
      perSet: Number(process.env.DEPUTY_BENCH_REAL_N ?? 6),
      maxTools: 2,
      maxOutputTokens: 256,
      prefixCaching: true,
      paired: true,
    });
  } else if (!quick) {
    notes.push("real Qwen2.5-Coder-0.5B-Instruct not cached (run `bash scripts/models.sh`): not measured");
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(table());
console.log("");
for (const n of notes) console.log(`- ${n}`);
console.log(
  "- vs bare = p50 / p50 of node-llama-cpp's LlamaCompletion with the same prompt and grammar (same threads); " +
    "LocalDelegate's includes its default confidence scoring and schema/prompt building.",
);
