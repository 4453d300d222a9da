/**
 * Proposals against the hardware's floor (issue 26), on real weights and the alert-triage fan-out:
 *
 * 1. llama.cpp's prefill and decode rates on this CPU (tokens/s, by thread count), measured with node-llama-cpp
 *    directly: a ~450-token prompt in one batch, then single-token steps.
 * 2. Per item of the fan-out (one tool set for every item, as a `for_each` delegate node has): the prompt tokens
 *    shared with every item vs the item's own, the answer's value tokens vs its structure (forced or formatting),
 *    and the floor = own prompt tokens / prefill rate + value tokens / decode rate. Every speed is a ratio to it.
 * 3. The whole answer decoded against stopping once it is decided, jump-forward off and on (decode batches and
 *    time per proposal, same calls), LocalDelegate pool sizes,
 *    LlamaServerDelegate parallel slots, and a bare llama-server `/completion` with the same prompt and JSON-schema
 *    grammar and no prefix reuse (`cache_prompt: false`): proposals/s, side by side.
 *
 *   npx tsx bench/delegate.ts --floor
 *     DEPUTY_BENCH_FLOOR_MODELS=qwen2.5-coder-0.5b-instruct,qwen2.5-coder-1.5b-instruct
 *     DEPUTY_BENCH_FLOOR_N=100 items   DEPUTY_BENCH_FLOOR_POOLS=1,2   DEPUTY_BENCH_FLOOR_THREADS=1,2 (rates)
 *     DEPUTY_BENCH_FLOOR_PARTS=rates,whole,jump,pools,server (which parts run)
 *     DEPUTY_BENCH_FLOOR_SVG=bench/results/delegate-floor.svg
 *
 * Prints markdown tables, the load average before and after every part, and writes the SVG.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { LocalDelegate, type LocalDecodeInfo } from "../src/delegate/backends/local-delegate.js";
import { LlamaServerDelegate } from "../src/delegate/backends/llama-server-delegate.js";
import { LLAMA_SERVER_DIALECT, toGrammarSchema } from "../src/delegate/backends/grammar-schema.js";
import { valueTokens } from "../src/confidence/answer-confidence.js";
import { buildProposalSchema } from "../src/delegate/proposal-schema.js";
import { buildPrompt } from "../src/runtime/tool-call-prompt.js";
import type { ProposeRequest, ToolCallDelegate } from "../src/delegate/protocol.js";
import {
  findLlamaServerBinary,
  findRealModel,
  type RealModelName,
  startLlamaServer,
} from "../src/testing/index.js";
import { floorSvg, type FloorBar } from "./delegate-floor-svg.js";

const env = process.env;
const MODELS = (
  env.DEPUTY_BENCH_FLOOR_MODELS ?? "qwen2.5-coder-0.5b-instruct,qwen2.5-coder-1.5b-instruct"
).split(",") as RealModelName[];
const N = Number(env.DEPUTY_BENCH_FLOOR_N ?? 100);
const POOLS = (env.DEPUTY_BENCH_FLOOR_POOLS ?? "1,2").split(",").map(Number);
const THREADS = (env.DEPUTY_BENCH_FLOOR_THREADS ?? "1,2").split(",").map(Number);
const PARTS = new Set((env.DEPUTY_BENCH_FLOOR_PARTS ?? "rates,whole,jump,pools,server").split(","));
const SVG = env.DEPUTY_BENCH_FLOOR_SVG ?? "bench/results/delegate-floor.svg";

const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(" / ");
const out: string[] = [];
const say = (line: string) => {
  out.push(line);
  console.error(line);
};

/** The alert-triage fan-out: the first `n` labelled items of its held-out set, one tool set for all. */
function fanout(n: number): ProposeRequest[] {
  const rows = readFileSync(new URL("../examples/alert-triage/data/heldout.jsonl", import.meta.url), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as ProposeRequest)
    .slice(0, n);
  const tools = rows[0]!.tools;
  return rows.map((r) => ({ instruction: r.instruction, facts: r.facts, tools }));
}

interface Rates {
  /** Tokens per CPU-second (what the work costs, whatever else runs on the machine). */
  prefill: number;
  decode: number;
  /** Tokens per wall-clock second on this machine as loaded at the time. */
  prefillWall: number;
  decodeWall: number;
}

/** CPU milliseconds of this process (llama.cpp's threads run in it) and of `pids` (a llama-server). */
function cpuMs(pids: number[] = []): number {
  const own = process.cpuUsage();
  let ms = (own.user + own.system) / 1000;
  for (const pid of pids) {
    // /proc/<pid>/stat fields 14 and 15: utime and stime in clock ticks (100 a second on Linux).
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    ms += (Number(fields[11]) + Number(fields[12])) * 10;
  }
  return ms;
}

/**
 * Prefill (one batch of the fan-out's first prompt) and decode (single-token steps) rates, best of five, per
 * CPU-second and per wall second. The CPU figure is the one to compare on a shared machine: a starved process
 * waits in wall time, not in CPU time.
 */
async function rates(model: string, threads: number, prompt: string): Promise<Rates> {
  const m = await import("node-llama-cpp");
  const llama = await m.getLlama({ gpu: false, build: "never", logLevel: m.LlamaLogLevel.error });
  const loaded = await llama.loadModel({ modelPath: model });
  const context = await loaded.createContext({ contextSize: 2048, threads });
  const sequence = context.getSequence();
  const tokens = loaded.tokenize(prompt, true);
  const best = { prefill: 0, decode: 0, prefillWall: 0, decodeWall: 0 };
  try {
    // Best of five: the floor is what the hardware allows, and on a shared machine a single reading of a few
    // dozen steps varied by a quarter between runs (15.9 and 20.3 decode tokens a CPU-second on 0.5B).
    for (let run = 0; run < 5; run++) {
      await sequence.clearHistory();
      let [t, c] = [performance.now(), cpuMs()];
      await sequence.evaluateWithoutGeneratingNewTokens(tokens);
      best.prefill = Math.max(best.prefill, tokens.length / ((cpuMs() - c) / 1000));
      best.prefillWall = Math.max(best.prefillWall, tokens.length / ((performance.now() - t) / 1000));
      const steps = 32;
      let n = 0;
      [t, c] = [performance.now(), cpuMs()];
      // Decode steps as deputy's decoding makes them: one token a batch, its distribution read, fed back.
      let token = tokens.at(-1)!;
      for (; n < steps; n++) {
        const [output] = await sequence.controlledEvaluate([
          [token, { generateNext: { token: true, options: { temperature: 0 } } }],
        ]);
        token = output?.next.token ?? token;
      }
      best.decode = Math.max(best.decode, steps / ((cpuMs() - c) / 1000));
      best.decodeWall = Math.max(best.decodeWall, steps / ((performance.now() - t) / 1000));
    }
  } finally {
    await context.dispose();
    await loaded.dispose();
  }
  return best;
}

/** Tokens of an item's own prompt in a window reading: about what an alert-triage item brings that is new. */
const OWN_TOKENS = 48;

/**
 * Rates read in the same window as a configuration's proposals, on a context of its own: the CPU a prompt tail of
 * {@link OWN_TOKENS} costs evaluated after the rest of the prompt (as an item's own tokens are, after the shared
 * prefix: attention over the prefix makes them dearer than a prompt's average token) and single decode steps.
 * The machine's speed drifts: the same readings were 38 % apart an hour apart on a quiet machine (load ~1), so a
 * floor read once at the start would not be the floor of a run half an hour later.
 */
async function windowRates(model: string, prompt: string) {
  const m = await import("node-llama-cpp");
  const llama = await m.getLlama({ gpu: false, build: "never", logLevel: m.LlamaLogLevel.error });
  const loaded = await llama.loadModel({ modelPath: model });
  const context = await loaded.createContext({ contextSize: 2048, threads: 1 });
  const sequence = context.getSequence();
  const tokens = loaded.tokenize(prompt, true);
  const head = tokens.length - OWN_TOKENS;
  await sequence.evaluateWithoutGeneratingNewTokens(tokens.slice(0, head));
  return {
    /** Best of three: tokens a CPU-second for the tail after the head, and for decode steps. */
    async read(): Promise<{ prefill: number; decode: number }> {
      const best = { prefill: 0, decode: 0 };
      for (let run = 0; run < 3; run++) {
        await sequence.eraseContextTokenRanges([{ start: head, end: sequence.nextTokenIndex }]);
        let c = cpuMs();
        await sequence.evaluateWithoutGeneratingNewTokens(tokens.slice(head));
        best.prefill = Math.max(best.prefill, OWN_TOKENS / ((cpuMs() - c) / 1000));
        const steps = 16;
        let token = tokens.at(-1)!;
        c = cpuMs();
        for (let n = 0; n < steps; n++) {
          const [output] = await sequence.controlledEvaluate([
            [token, { generateNext: { token: true, options: { temperature: 0 } } }],
          ]);
          token = output?.next.token ?? token;
        }
        best.decode = Math.max(best.decode, steps / ((cpuMs() - c) / 1000));
      }
      return best;
    },
    async close() {
      await context.dispose();
      await loaded.dispose();
    },
  };
}

interface Item {
  ms: number;
  /** CPU ms of this proposal alone (one at a time only). */
  cpu: number | undefined;
  call: string;
  confidence: number | null;
}

/**
 * Runs the requests `concurrency` at a time after one warm-up; per-item latency, the wall time and the CPU time
 * of the whole run (this process and `pids`).
 */
async function run(
  delegate: ToolCallDelegate,
  list: ProposeRequest[],
  concurrency: number,
  infos?: LocalDecodeInfo[],
  pids: number[] = [],
): Promise<{ items: Item[]; wall: number; cpu: number }> {
  await delegate.propose(list[0]!).catch(() => undefined);
  if (infos) infos.length = 0;
  const items: Item[] = new Array(list.length);
  let next = 0;
  const started = performance.now();
  const cpu0 = cpuMs(pids);
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < list.length; i = next++) {
        const [t, c] = [performance.now(), cpuMs(pids)];
        const p = await delegate.propose(list[i]!).catch((e: Error) => e);
        items[i] = {
          ms: performance.now() - t,
          cpu: concurrency === 1 ? cpuMs(pids) - c : undefined,
          call: p instanceof Error ? `error: ${p.message}` : JSON.stringify([p.name, p.arguments]),
          confidence: p instanceof Error ? null : p.confidence,
        };
      }
    }),
  );
  return { items, wall: (performance.now() - started) / 1000, cpu: cpuMs(pids) - cpu0 };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
};
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

/**
 * The floor of one proposal (seconds) from its token accounting: the prompt tokens it had to evaluate — past the
 * prefix it shares with every item, and past what it shares with the item before it (every alert's task begins
 * with the same words, which the prefix cache already serves) — and its value tokens.
 */
function floorOf(
  info: LocalDecodeInfo,
  r: { prefill: number; decode: number },
): { own: number; value: number; floor: number } {
  const own = info.promptTokens - Math.max(info.sharedPromptTokens, info.reusedPromptTokens);
  const value = valueTokens(info.pieces).filter(Boolean).length;
  return { own, value, floor: own / r.prefill + value / r.decode };
}

/** A bare llama-server `/completion`: the same prompt and JSON-schema grammar, no prompt cache, no logprobs. */
function bareServer(baseUrl: string) {
  const templates = new Map<string, string>();
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${baseUrl}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${path}: HTTP ${res.status}`);
    return (await res.json()) as Record<string, unknown>;
  };
  return {
    name: "bare",
    maxTools: 5,
    maxInputChars: 4000,
    close: async () => {},
    propose: async (r: ProposeRequest) => {
      const { system, user } = buildPrompt(r);
      const key = `${system}\u0000${user}`;
      let prompt = templates.get(key);
      if (prompt === undefined) {
        const messages = [
          { role: "system", content: system },
          { role: "user", content: user },
        ];
        prompt = (await post("/apply-template", { messages })).prompt as string;
        templates.set(key, prompt);
      }
      const answer = await post("/completion", {
        prompt,
        json_schema: toGrammarSchema(buildProposalSchema(r.tools), LLAMA_SERVER_DIALECT).schema,
        n_predict: 512,
        temperature: 0,
        cache_prompt: false,
      });
      const parsed = JSON.parse(answer.content as string) as { name: string | null; arguments?: unknown };
      return {
        name: parsed.name,
        arguments: (parsed.arguments ?? {}) as Record<string, unknown>,
        confidence: null,
        backend: "bare",
        latencyMs: 0,
      };
    },
  } satisfies ToolCallDelegate;
}

const bars: FloorBar[] = [];

async function benchModel(name: RealModelName) {
  const model = findRealModel(name);
  if (!model) {
    say(`- ${name}: not cached (\`bash scripts/models.sh ${name}\`), not measured`);
    return;
  }
  const list = fanout(N);
  const { system, user } = buildPrompt(list[0]!);
  say(`\n### ${name}, ${list.length} alert-triage items (load average ${load()} at the start)\n`);
  const byThreads = new Map<number, Rates>();
  if (PARTS.has("rates")) {
    say(
      "| threads | prefill tokens/CPU-s | decode tokens/CPU-s | prefill tokens/s (wall) | decode tokens/s (wall) | load average after |",
    );
    say("|---|---|---|---|---|---|");
    for (const threads of THREADS) {
      const r = await rates(model, threads, `${system}\n${user}`);
      byThreads.set(threads, r);
      say(
        `| ${threads} | ${r.prefill.toFixed(1)} | ${r.decode.toFixed(1)} | ${r.prefillWall.toFixed(1)} | ${r.decodeWall.toFixed(1)} | ${load()} |`,
      );
    }
  }

  const infos: LocalDecodeInfo[] = [];
  const local = (options: {
    poolSize?: number;
    jumpForward?: boolean;
    decodeWholeAnswer?: boolean;
    openingApart?: boolean;
  }) =>
    new LocalDelegate({
      model,
      threads: 1,
      ...(options.poolSize !== undefined ? { poolSize: options.poolSize } : {}),
      ...(options.jumpForward !== undefined ? { jumpForward: options.jumpForward } : {}),
      _internal: {
        onDecode: (i) => infos.push(i),
        decodeWholeAnswer: options.decodeWholeAnswer ?? false,
        openingInPromptBatch: !options.openingApart,
      },
    });
  const results: {
    label: string;
    items: Item[];
    wall: number;
    cpu: number;
    infos: LocalDecodeInfo[];
    pool: number;
    /** The floor's rates in this configuration's window: per-token costs averaged over the readings around it. */
    window: { prefill: number; decode: number };
  }[] = [];
  const probe = await windowRates(model, `${system}\n${user}`);
  let before = await probe.read();
  const measure = async (label: string, delegate: ToolCallDelegate, pool: number, serverPid?: number) => {
    const isLocal = serverPid === undefined;
    const pids = isLocal ? [] : [serverPid];
    const { items, wall, cpu } = await run(delegate, list, pool, isLocal ? infos : undefined, pids);
    await delegate.close();
    const after = await probe.read();
    const window = {
      prefill: 2 / (1 / before.prefill + 1 / after.prefill),
      decode: 2 / (1 / before.decode + 1 / after.decode),
    };
    results.push({ label, items, wall, cpu, infos: isLocal ? [...infos] : [], pool, window });
    say(
      `  ${label}: ${(list.length / wall).toFixed(3)} proposals/s, ${(cpu / list.length).toFixed(0)} CPU ms a proposal, ` +
        `window rates (own-token prefill / decode, tokens a CPU-second) ${before.prefill.toFixed(1)} / ${before.decode.toFixed(1)} before, ` +
        `${after.prefill.toFixed(1)} / ${after.decode.toFixed(1)} after, load average ${load()}`,
    );
    before = after;
  };
  if (PARTS.has("whole")) {
    // Before stopping at a decided answer: every token decoded, the closing brackets and a decline's tail too.
    await measure(
      "LocalDelegate pool 1, whole answer decoded",
      local({ jumpForward: false, decodeWholeAnswer: true }),
      1,
    );
  }
  if (PARTS.has("jump")) {
    // The decoding before the answer's opening went into the prompt's batch: the opening a batch of its own.
    await measure(
      "LocalDelegate pool 1, jump-forward on, the opening in a batch of its own",
      local({ jumpForward: true, openingApart: true }),
      1,
    );
    await measure("LocalDelegate pool 1, jump-forward off", local({ jumpForward: false }), 1);
    await measure("LocalDelegate pool 1, jump-forward on (the default)", local({ jumpForward: true }), 1);
  }
  if (PARTS.has("pools")) {
    for (const pool of POOLS.filter((p) => p > 1 || !PARTS.has("jump"))) {
      await measure(`LocalDelegate pool ${pool}`, local({ poolSize: pool }), pool);
    }
  }
  if (PARTS.has("server") && findLlamaServerBinary()) {
    for (const slots of POOLS) {
      const server = await startLlamaServer({
        model,
        threads: 1,
        parallel: slots,
        contextSize: 4096 * slots,
      });
      try {
        await measure(
          `LlamaServerDelegate ${slots} slot${slots > 1 ? "s" : ""}`,
          new LlamaServerDelegate({ baseUrl: server.baseUrl, timeoutMs: 600_000 }),
          slots,
          server.pid,
        );
        await measure(
          `bare llama-server /completion, ${slots} slot${slots > 1 ? "s" : ""}, no prefix reuse`,
          bareServer(server.baseUrl),
          slots,
          server.pid,
        );
      } finally {
        await server.stop();
      }
    }
  }

  // Token accounting and the floor, from a LocalDelegate run (the same prompt for every backend).
  // A jump-forward run also counts the forced tokens; any LocalDelegate run gives the floor.
  const accounting =
    results.find((x) => x.infos.length === list.length && x.label.includes("(the default)")) ??
    results.find((x) => x.infos.length === list.length && x.infos.some((i) => i.forced > 0)) ??
    results.find((x) => x.infos.length === list.length);
  await probe.close();
  if (!accounting) return;
  const floorsIn = (w: { prefill: number; decode: number }) => accounting.infos.map((i) => floorOf(i, w));
  const w0 = results[0]!.window;
  const floors = floorsIn(w0);
  const floorTotal = sum(floors.map((f) => f.floor));
  const shared = median(accounting.infos.map((i) => i.sharedPromptTokens));
  const own = median(floors.map((f) => f.own));
  const written = median(accounting.infos.map((i) => i.pieces.length));
  const value = median(floors.map((f) => f.value));
  const forced = median(accounting.infos.map((i) => i.forced));
  say(
    `\nPer proposal (median of ${list.length}): reads ${shared} shared + ${own} own prompt tokens; writes ${written} ` +
      `tokens, ${value} of them value tokens, ${forced} appended as forced runs. Floor at 1 thread in the first ` +
      `configuration's window (${w0.prefill.toFixed(1)} own-token prefill, ${w0.decode.toFixed(1)} decode tokens a CPU-second): median ` +
      `${(median(floors.map((f) => f.floor)) * 1000).toFixed(0)} CPU ms a proposal, ${(list.length / floorTotal).toFixed(3)} proposals a CPU-second. ` +
      `Each row's ratios are to the floor in its own window (the rates read before and after it).\n`,
  );
  const reference = results[0]!.items.map((i) => i.call);
  say(
    "| backend | proposals/s (wall) | CPU ms a proposal | floor in its window, CPU ms a proposal | CPU ÷ floor (all items) | median CPU ÷ floor (per item) | median wall ms | batches a proposal | same calls as the first row |",
  );
  say("|---|---|---|---|---|---|---|---|---|");
  for (const x of results) {
    const perSecond = list.length / x.wall;
    const own = floorsIn(x.window);
    const ownTotal = sum(own.map((f) => f.floor));
    const ratios = x.items.flatMap((it, k) => (it.cpu === undefined ? [] : [it.cpu / 1000 / own[k]!.floor]));
    const batches = x.infos.length ? median(x.infos.map((i) => i.batches)).toFixed(0) : "";
    const same = x.items.filter((it, k) => it.call === reference[k]).length;
    say(
      `| ${x.label} | ${perSecond.toFixed(3)} | ${(x.cpu / list.length).toFixed(0)} | ${((ownTotal / list.length) * 1000).toFixed(0)} | ${(x.cpu / 1000 / ownTotal).toFixed(2)}× | ${ratios.length ? `${median(ratios).toFixed(2)}×` : ""} | ${median(x.items.map((i) => i.ms)).toFixed(0)} | ${batches} | ${same}/${list.length} |`,
    );
    bars.push({
      model: name,
      label: x.label,
      perSecond: list.length / (x.cpu / 1000),
      floorPerSecond: list.length / ownTotal,
    });
  }
  const whole = results.find((x) => x.label.includes("whole answer decoded"));
  // The default path: jump-forward off, or pool 1 when the jump part did not run.
  const off =
    results.find((x) => x.label.includes("jump-forward off")) ??
    results.find((x) => x.label === "LocalDelegate pool 1");
  if (whole && off) {
    const steps = (x: typeof whole) => median(x.infos.map((i) => i.pieces.length));
    say(
      `\nStopping at a decided answer: tokens decoded a proposal ${steps(whole)} → ${steps(off)} (medians; ` +
        `${sum(whole.infos.map((i) => i.pieces.length))} → ${sum(off.infos.map((i) => i.pieces.length))} in all), ` +
        `CPU a proposal ${median(whole.items.map((i) => i.cpu ?? NaN)).toFixed(0)} → ${median(off.items.map((i) => i.cpu ?? NaN)).toFixed(0)} ms, ` +
        `calls identical on ${off.items.filter((it, k) => it.call === whole.items[k]!.call).length}/${list.length}, ` +
        `answer confidence identical on ${off.items.filter((it, k) => it.confidence === whole.items[k]!.confidence).length}/${list.length}.`,
    );
  }
  const on = results.find((x) => x.label.includes("jump-forward on (the default)"));
  const apart = results.find((x) => x.label.includes("opening in a batch of its own"));
  if (apart && on) {
    say(
      `\nThe answer's opening in the prompt's batch: batches a proposal ${median(apart.infos.map((i) => i.batches))} → ${median(on.infos.map((i) => i.batches))}, ` +
        `opening tokens taken in the prompt's batch ${median(on.infos.map((i) => i.opening))} (median), ` +
        `CPU a proposal ${median(apart.items.map((i) => i.cpu ?? NaN)).toFixed(0)} → ${median(on.items.map((i) => i.cpu ?? NaN)).toFixed(0)} ms (medians), ` +
        `${(apart.cpu / 1000).toFixed(1)} → ${(on.cpu / 1000).toFixed(1)} CPU s in all, ` +
        `calls identical on ${on.items.filter((it, k) => it.call === apart.items[k]!.call).length}/${list.length} ` +
        `(the choice's distribution is rounded as the prompt's batch rounds it, not as a step's).`,
    );
  }
  if (off && on) {
    const drift = on.items.map((it, k) => {
      const a = off.items[k]!.confidence;
      const b = it.confidence;
      return a && b ? Math.abs(b - a) / a : 0;
    });
    say(
      `\nJump-forward: batches a proposal ${median(off.infos.map((i) => i.batches))} → ${median(on.infos.map((i) => i.batches))}, ` +
        `CPU a proposal ${median(off.items.map((i) => i.cpu ?? NaN)).toFixed(0)} → ${median(on.items.map((i) => i.cpu ?? NaN)).toFixed(0)} ms, ` +
        `wall ${median(off.items.map((i) => i.ms)).toFixed(0)} → ${median(on.items.map((i) => i.ms)).toFixed(0)} ms (medians), ` +
        `calls identical on ${on.items.filter((it, k) => it.call === off.items[k]!.call).length}/${list.length}, ` +
        `answer confidence relative difference median ${median(drift).toFixed(3)}, max ${Math.max(...drift).toFixed(3)}.`,
    );
  }
  const slowest = results.filter((x) => x.label.startsWith("bare llama-server"));
  for (const bare of slowest) {
    const slots = bare.pool;
    // deputy's default (jump-forward off) against the bare call.
    const ours = results.filter(
      (x) => x.pool === slots && !x.label.startsWith("bare") && !x.label.includes("jump-forward on"),
    );
    for (const x of ours) {
      // At equal calls: only the items where both made the same call (one at a time, so per-item CPU is known).
      const equal = x.items.flatMap((it, k) => {
        const b = bare.items[k]!;
        return it.call === b.call && it.cpu !== undefined && b.cpu !== undefined ? [[it.cpu, b.cpu]] : [];
      });
      const atEqual =
        equal.length > 0
          ? `; on the ${equal.length} items where both made the same call ${(
              equal.reduce((a, [, b]) => a + b!, 0) / equal.reduce((a, [o]) => a + o!, 0)
            ).toFixed(2)}× the proposals a CPU-second`
          : "";
      say(
        `- ${x.label} against ${bare.label}: ${(bare.cpu / x.cpu).toFixed(2)}× the proposals a CPU-second, ${(bare.wall / x.wall).toFixed(2)}× the proposals a wall second${atEqual}`,
      );
    }
  }
}

export async function floorBench(): Promise<string> {
  say(`## Proposals against the floor (${new Date().toISOString()}, load average ${load()})`);
  for (const name of MODELS) await benchModel(name);
  if (bars.length > 0) {
    writeFileSync(SVG, floorSvg(bars));
    say(`\n![proposals/s against the floor](${SVG.replace(/^bench\//, "")})`);
  }
  say(`\nLoad average at the end: ${load()}`);
  return out.join("\n");
}
