// Cached proposals (issue 40, item 2): a 100-item delegate fan-out in which 30 % of the items repeat an earlier
// one, run with the proposal cache off (`proposalCache: false`) and on, CPU and wall time per run, and whether the
// tool calls made are identical. No real model runs here: the levels are the distilled delegate trained on the
// alert-triage traces (in-process, microseconds a proposal) and a slow fake — that same distilled delegate behind
// a fixed amount of work per proposal (BURN sha256 rounds over 1 KiB, default 20000: about 34 ms of CPU on this
// machine), standing in for a small local model. Each round
// makes new backend objects, so the in-process cache starts empty ("on, cold"); "on, warm store" is a second run
// on the same SQLite store with new backend objects (a restart, or a resume): only the store's cache table helps.
// Run: npm run bench:proposal-cache  (builds, then prints a table; nothing is asserted). Env: ROUNDS (default 5),
// BURN (default 20000).
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { readTraces } from "../dist/traces/read-traces.js";
import { DistilledDelegate, examplesFromTraces, trainDistilled } from "../dist/distill/index.js";
import type { Proposal, ProposeRequest, ToolCallDelegate } from "../dist/delegate/protocol.js";
import { defineTool, runPlan, SqliteRunStore } from "../dist/index.js";

const ROUNDS = Number(process.env.ROUNDS ?? 5);
const BURN = Number(process.env.BURN ?? 20_000);
const KIB = Buffer.alloc(1024, 7);
const NODE = "triage_items";
const data = (file: string) =>
  fileURLToPath(new URL(`../examples/alert-triage/data/${file}`, import.meta.url));
const examples = (file: string) => examplesFromTraces(readTraces(data(file)).traces, NODE).examples;

const model = trainDistilled(examples("train.jsonl"), { node: NODE }).model;
const heldOut = examples("heldout.jsonl");
// 70 distinct tasks, then 30 repeats of earlier ones, spread through the run (every 10th item on is a repeat).
const distinct = heldOut.slice(0, 70);
const items: { instruction: string; facts: Record<string, unknown> }[] = [];
for (let i = 0, next = 0; items.length < 100; i++) {
  const repeat = i % 10 >= 7;
  const source = repeat ? distinct[(i * 7) % Math.max(1, next)]! : distinct[next++]!;
  items.push({ instruction: source.instruction, facts: source.facts });
}
const toolSpecs = heldOut[0]!.tools;

/** The distilled delegate behind fixed work: a deterministic level that costs CPU like a model. */
class BurningDelegate implements ToolCallDelegate {
  readonly name = "slow-fake";
  readonly maxTools: number;
  readonly maxInputChars: number;
  readonly cacheIdentity: string;
  proposals = 0;
  constructor(private readonly inner: DistilledDelegate) {
    this.maxTools = inner.maxTools;
    this.maxInputChars = inner.maxInputChars;
    this.cacheIdentity = `burn-${BURN}:${inner.cacheIdentity}`;
  }
  async propose(request: ProposeRequest): Promise<Proposal> {
    this.proposals++;
    let digest = "";
    for (let i = 0; i < BURN; i++) digest = createHash("sha256").update(KIB).update(digest).digest("hex");
    const proposal = await this.inner.propose(request);
    return { ...proposal, backend: this.name, ...(digest === "" ? { raw: "" } : {}) };
  }
  close() {
    return this.inner.close();
  }
}

/** Counts the distilled delegate's proposals (what the cache saves). */
class Counted implements ToolCallDelegate {
  readonly name: string;
  readonly maxTools: number;
  readonly maxInputChars: number;
  readonly cacheIdentity: string;
  proposals = 0;
  constructor(private readonly inner: ToolCallDelegate) {
    this.name = inner.name;
    this.maxTools = inner.maxTools;
    this.maxInputChars = inner.maxInputChars;
    this.cacheIdentity = inner.cacheIdentity!;
  }
  propose(request: ProposeRequest) {
    this.proposals++;
    return this.inner.propose(request);
  }
  close() {
    return this.inner.close();
  }
}

const plan = {
  name: "proposal-cache-bench",
  nodes: [
    {
      id: NODE,
      type: "delegate",
      instruction: "{item.instruction}",
      facts: {
        alert_id: "{item.facts.alert_id}",
        severity: "{item.facts.severity}",
        environment: "{item.facts.environment}",
      },
      tools: toolSpecs.map((t) => t.name),
      min_confidence: 0,
      store_as: "call_{index}",
      for_each: { source: "{artifacts.items}", max_concurrency: 1, on_item_error: "collect" },
    },
  ],
};

type Level = "distilled" | "slow fake";
type Mode = "off" | "on, cold" | "on, warm store";

async function once(level: Level, mode: Mode, path: string) {
  const calls: string[] = new Array(items.length).fill("");
  const tools = toolSpecs.map((spec) =>
    defineTool({
      name: spec.name,
      description: spec.description,
      input: spec.parameters,
      delegateSafe: true,
      run: (args, ctx) => {
        calls[ctx.itemIndex!] = `${spec.name} ${JSON.stringify(args)}`;
        return true;
      },
    }),
  );
  const make = () =>
    level === "distilled"
      ? new Counted(new DistilledDelegate({ model }))
      : new BurningDelegate(new DistilledDelegate({ model }));
  if (mode === "on, warm store") {
    // The first run fills the store's cache table; its backend objects (and their in-process cache) are dropped.
    const warm = new SqliteRunStore(path);
    await runPlan(plan, { tools, delegates: [make()], store: warm, artifacts: { items } });
    await warm.close();
  }
  const delegate = make();
  const store = new SqliteRunStore(path);
  const cpu = process.cpuUsage();
  const started = performance.now();
  const manifest = await runPlan(plan, {
    tools,
    delegates: [delegate],
    store,
    artifacts: { items },
    proposalCache: mode !== "off",
  });
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  await store.close();
  return {
    wallMs,
    cpuMs: (used.user + used.system) / 1000,
    proposals: delegate.proposals,
    status: manifest.status,
    calls: calls.join("\n"),
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const rows: string[] = [];
for (const level of ["distilled", "slow fake"] as Level[]) {
  const modes: Mode[] = ["off", "on, cold", "on, warm store"];
  const results = new Map<Mode, Awaited<ReturnType<typeof once>>[]>(modes.map((m) => [m, []]));
  for (let round = 0; round < ROUNDS + 1; round++) {
    // Alternating order round by round; the first round warms the JIT and is not counted.
    for (const mode of round % 2 ? [...modes].reverse() : modes) {
      const dir = mkdtempSync(join(tmpdir(), "deputy-bench-pcache-"));
      const r = await once(level, mode, join(dir, "runs.db"));
      rmSync(dir, { recursive: true, force: true });
      if (round > 0) results.get(mode)!.push(r);
    }
  }
  const off = results.get("off")!;
  for (const mode of modes) {
    const rs = results.get(mode)!;
    const same = rs.every((r) => r.calls === off[0]!.calls) && off.every((r) => r.calls === off[0]!.calls);
    const cpu = median(rs.map((r) => r.cpuMs));
    const offCpu = median(off.map((r) => r.cpuMs));
    rows.push(
      `| ${level} | ${mode} | ${rs[0]!.proposals} | ${median(rs.map((r) => r.wallMs)).toFixed(0)} | ${cpu.toFixed(0)} | ${(cpu / offCpu).toFixed(2)}× | ${same ? "yes" : "NO"} | ${rs[0]!.status} |`,
    );
  }
}

console.log(
  `100 items (70 distinct, 30 repeats), SQLite store, max_concurrency 1; median of ${ROUNDS} rounds; BURN ${BURN}\n`,
);
console.log(
  "| level | proposal cache | model proposals | wall ms | CPU ms | CPU ÷ off | identical calls | run |",
);
console.log("|---|---|---|---|---|---|---|---|");
for (const row of rows) console.log(row);
