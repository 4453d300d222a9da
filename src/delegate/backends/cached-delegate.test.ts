import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runPlan } from "../../compose/index.js";
import { MemoryRunStore } from "../../store/memory-run-store.js";
import { SqliteRunStore } from "../../store/sqlite-run-store.js";
import { defineTool } from "../../tools/define-tool.js";
import { MemoryTraceSink } from "../../traces/memory-trace-sink.js";
import type { Proposal, ProposeRequest, ToolCallDelegate } from "../protocol.js";
import { ScriptedDelegate } from "../scripted-delegate.js";
import { CachedDelegate, cacheProposals, proposalCacheKey } from "./cached-delegate.js";
import { LocalDelegate } from "./local-delegate.js";

/** A deterministic fake model that counts what it is asked (its answer depends only on the request). */
class CountingModel implements ToolCallDelegate {
  readonly name = "fake";
  readonly maxTools = 5;
  readonly maxInputChars = 10_000;
  calls = 0;
  readonly cacheIdentity: string | undefined;
  constructor(
    /** `null`: a sampling model, no identity. */
    identity: string | null = "fake-model-v1",
    private readonly answer: (r: ProposeRequest) => Record<string, unknown> = (r) => ({
      reason: `sev ${String(r.facts.sev)}`,
    }),
  ) {
    this.cacheIdentity = identity ?? undefined;
  }
  async propose(request: ProposeRequest): Promise<Proposal> {
    this.calls++;
    await new Promise((r) => setTimeout(r, 1));
    return {
      name: "ignore_alert",
      arguments: this.answer(request),
      confidence: 0.8,
      backend: this.name,
      latencyMs: 7,
      usage: { inputTokens: 100, outputTokens: 10 },
    };
  }
  async close() {}
}

const ignore = defineTool({
  name: "ignore_alert",
  description: "Ignore a noisy alert",
  delegateSafe: true,
  input: { type: "object", properties: { reason: { type: "string" } }, required: ["reason"] },
  run: (args) => ({ ignored: true, ...args }),
});

const ALERTS = ["high", "low", "high", "high", "low", "mid"].map((sev, i) => ({ id: `a${i}`, sev }));

function fanOut(minConfidence = 0.5): unknown {
  return {
    name: "triage",
    nodes: [
      {
        id: "d",
        type: "delegate",
        instruction: "Triage this alert",
        facts: { sev: "{alert.sev}" },
        tools: ["ignore_alert"],
        min_confidence: minConfidence,
        store_as: "out_{alert.id}",
        for_each: { source: "{artifacts.alerts}", as: "alert", max_concurrency: 1 },
      },
    ],
  };
}

async function triage(delegate: ToolCallDelegate, options: Record<string, unknown> = {}) {
  const traceSink = new MemoryTraceSink();
  const manifest = await runPlan(fanOut(options.minConfidence as number | undefined), {
    tools: [ignore],
    delegates: [delegate],
    traceSink,
    artifacts: { alerts: ALERTS },
    ...options,
  });
  return { manifest, traces: traceSink.traces };
}

describe("cached proposals (a deterministic delegate level)", () => {
  it("asks the model once per distinct task in a fan-out; each reuse is traced as a cache hit", async () => {
    const model = new CountingModel();
    const { manifest, traces } = await triage(model);
    expect(manifest.status).toBe("completed");
    expect(model.calls).toBe(3);
    expect(traces.map((t) => t.proposal?.cached ?? false)).toEqual([false, false, true, true, true, false]);
    expect(manifest.artifacts.out_a3).toEqual({ ignored: true, reason: "sev high" });
    // A hit's trace is the miss's, but for the mark, its latency and usage (nothing was spent), time and item.
    const strip = (t: (typeof traces)[number]) => {
      const { time: _t, item: _i, latencyMs: _l, proposal, ...rest } = t;
      const { cached: _c, latencyMs: _pl, usage: _u, ...p } = proposal!;
      return { ...rest, proposal: p };
    };
    expect(strip(traces[2]!)).toEqual(strip(traces[0]!));
    expect(traces[2]!.proposal!.usage).toBeUndefined();
    expect(traces[0]!.proposal!.usage).toEqual({ inputTokens: 100, outputTokens: 10 });
  });

  it("still judges a reused proposal: a raised min_confidence rejects what was accepted", async () => {
    const model = new CountingModel();
    const store = new MemoryRunStore();
    await triage(model, { store });
    const stricter = await triage(model, { store, minConfidence: 0.9 });
    expect(model.calls).toBe(3);
    expect(stricter.traces.every((t) => t.proposal?.cached === true)).toBe(true);
    expect(stricter.traces.every((t) => t.verdict === "low_confidence")).toBe(true);
    expect(stricter.manifest.status).not.toBe("completed");
  });

  it("never caches a level without a cacheIdentity (sampling), nor with proposalCache: false", async () => {
    const sampling = new CountingModel(null);
    expect(cacheProposals(sampling)).toBe(sampling);
    await triage(sampling);
    expect(sampling.calls).toBe(ALERTS.length);
    const off = new CountingModel();
    const { traces } = await triage(off, { proposalCache: false });
    expect(off.calls).toBe(ALERTS.length);
    expect(traces.some((t) => t.proposal?.cached)).toBe(false);
  });

  it("reuses proposals from the run store in another process and after a restart (same SQLite file)", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "deputy-proposals-")), "runs.db");
    const first = new SqliteRunStore(path);
    const before = new CountingModel();
    await triage(before, { store: first });
    await first.close();
    expect(before.calls).toBe(3);
    // A new backend object of the same model: its in-process cache is empty, the store's is not.
    const again = new SqliteRunStore(path);
    const after = new CountingModel();
    const { traces } = await triage(after, { store: again });
    await again.close();
    expect(after.calls).toBe(0);
    expect(traces.every((t) => t.proposal?.cached === true)).toBe(true);
    // Another model (or the same one with other options) is another identity: asked again.
    const other = new CountingModel("fake-model-v2");
    await triage(other, { store: new SqliteRunStore(path) });
    expect(other.calls).toBe(3);
  });

  it("keys by identity, task, candidate tools, schema and examples, not by the unit asking", () => {
    const tools = [{ name: "t", description: "d", parameters: { type: "object" } }];
    const base: ProposeRequest = { instruction: "i", facts: { a: 1, b: 2 }, tools };
    const key = proposalCacheKey("m", base);
    expect(
      proposalCacheKey("m", { ...base, facts: { b: 2, a: 1 }, context: { runId: "r", nodeId: "n" } }),
    ).toBe(key);
    for (const changed of [
      proposalCacheKey("m2", base),
      proposalCacheKey("m", { ...base, instruction: "j" }),
      proposalCacheKey("m", { ...base, facts: { a: 1, b: 3 } }),
      proposalCacheKey("m", { ...base, tools: [{ ...tools[0]!, description: "e" }] }),
      proposalCacheKey("m", { ...base, schema: { type: "object" } }),
      proposalCacheKey("m", { ...base, examples: [] }),
    ])
      expect(changed).not.toBe(key);
  });

  it("keeps a proposal with a secret in it out of the shared store (in-process only)", async () => {
    const store = new MemoryRunStore();
    const secret = new CountingModel("secretive", () => ({
      reason: "token sk-live-abcdefghijklmnopqrstuvwxyz0123456789",
    }));
    const cached = new CachedDelegate(secret, "secretive", { store });
    const request: ProposeRequest = { instruction: "x", facts: {}, tools: [] };
    await cached.propose(request);
    expect((await cached.propose(request)).cached).toBe(true);
    expect(secret.calls).toBe(1);
    expect(await store.clearCache()).toBe(0);
  });

  it("makes one call for equal requests in flight at once", async () => {
    const model = new CountingModel();
    const cached = cacheProposals(model);
    const request: ProposeRequest = { instruction: "x", facts: { sev: "high" }, tools: [] };
    const answers = await Promise.all([1, 2, 3].map(() => cached.propose(request)));
    expect(model.calls).toBe(1);
    expect(answers.filter((a) => a.cached)).toHaveLength(2);
  });
});

describe("which backends are deterministic (cacheIdentity)", () => {
  it("a LocalDelegate when greedy or seeded, and its identity changes with what changes a proposal", () => {
    const model = "/nonexistent/model.gguf";
    const greedy = new LocalDelegate({ model });
    expect(greedy.cacheIdentity).toMatch(/^[0-9a-f]{32}$/);
    expect(new LocalDelegate({ model, poolSize: 2, threads: 4 }).cacheIdentity).toBe(greedy.cacheIdentity);
    expect(new LocalDelegate({ model, selfCheck: 0.5 }).cacheIdentity).not.toBe(greedy.cacheIdentity);
    expect(new LocalDelegate({ model, temperature: 0.7 }).cacheIdentity).toBeUndefined();
    const seeded = new LocalDelegate({ model, temperature: 0.7, seed: 1 }).cacheIdentity;
    expect(seeded).toBeDefined();
    expect(new LocalDelegate({ model, temperature: 0.7, seed: 2 }).cacheIdentity).not.toBe(seeded);
  });

  it("not a ScriptedDelegate: it answers by the unit asking, which is not in the key", () => {
    const scripted: ToolCallDelegate = new ScriptedDelegate({ entries: [] });
    expect(scripted.cacheIdentity).toBeUndefined();
  });
});

describe("a stored proposal is data", () => {
  it("is reused only when shaped like a proposal; anything else in the store is a miss", async () => {
    const store = new MemoryRunStore();
    const model = new CountingModel();
    const request: ProposeRequest = { instruction: "x", facts: { sev: "high" }, tools: [] };
    const key = proposalCacheKey(model.cacheIdentity!, request);
    for (const value of [null, "call", [1], { name: 3, arguments: {} }, { name: "t", arguments: [] }]) {
      await store.putCached({ key, scope: "proposal:fake", value, createdAt: 0, expiresAt: null });
      const answer = await new CachedDelegate(new CountingModel(), model.cacheIdentity!, { store }).propose(
        request,
      );
      expect(answer.cached).toBeUndefined();
    }
  });
});
