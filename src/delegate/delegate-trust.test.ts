import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { runPlan } from "../compose/index.js";
import { fitTrustModel, TrustModel, type TrustRow } from "../distill/trust-model.js";
import { defineTool } from "../tools/define-tool.js";
import type { DelegateTrace, TraceSink } from "../traces/trace.js";
import { acceptGate, VERDICTS } from "./accept-gate.js";
import type { ProposalTrust, ToolCallDelegate } from "./protocol.js";
import { trustSignals, withTrust } from "./proposal-trust.js";
import { ScriptedDelegate } from "./scripted-delegate.js";
import { cacheProposals } from "./backends/cached-delegate.js";

// A delegate node whose backends carry trust models fitted here from generated decisions: the gate holds the
// trusted probability, not the raw confidence, to the model's threshold and to the node's min_confidence.

const ignore = defineTool({
  name: "ignore_alert",
  description: "Ignore a noisy alert",
  delegateSafe: true,
  input: { type: "object", properties: { reason: { type: "string" } }, required: ["reason"] },
  run: (args) => ({ ignored: true, ...args }),
});
const tools = [ignore];

/** A deterministic stream in [0, 1). */
function stream(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function fitted(rows: TrustRow[]): TrustModel {
  const fit = fitTrustModel(rows, { targetPrecision: 0.95 });
  if (fit.status !== "fitted") throw new Error(fit.reason);
  return new TrustModel(fit.model);
}

// An underconfident level: right almost always above confidence 0.3, a coin toss below.
const underconfident = (() => {
  const next = stream(7);
  return fitted(
    Array.from({ length: 600 }, () => {
      const confidence = next();
      return { signals: { confidence }, correct: confidence > 0.3 ? next() > 0.005 : next() > 0.5 };
    }),
  );
})();

// A second level whose confidence says nothing, but agreeing with the level before does.
const agreeing = (() => {
  const next = stream(8);
  return fitted(
    Array.from({ length: 800 }, () => {
      const confidence = next();
      const agreesWithPrevious = next() < 0.5;
      return {
        signals: { confidence, agreesWithPrevious },
        correct: agreesWithPrevious ? next() > 0.005 : next() > 0.6,
      };
    }),
  );
})();

class MemorySink implements TraceSink {
  traces: DelegateTrace[] = [];
  write(trace: DelegateTrace) {
    this.traces.push(trace);
  }
}

const call = (reason: string, confidence: number | null, node = "d") => ({
  node,
  proposal: { name: "ignore_alert", arguments: { reason }, confidence },
});

function scripted(name: string, entries: ReturnType<typeof call>[], trust?: ProposalTrust) {
  const backend = new ScriptedDelegate({ name, entries });
  return trust ? withTrust(backend, trust) : backend;
}

async function run(node: object, delegates: ToolCallDelegate[]) {
  const sink = new MemorySink();
  const manifest = await runPlan(
    {
      name: "t",
      nodes: [
        {
          id: "d",
          type: "delegate",
          instruction: "Triage the alert",
          tools: ["ignore_alert"],
          store_as: "out",
          ...node,
        },
      ],
    },
    { tools, delegates, traceSink: sink },
  );
  const hops = manifest.nodes.d!.details!.hops as Record<string, unknown>[];
  return { manifest, sink, hops };
}

describe("a delegate node's gate with a trust model", () => {
  it("the fitted models are what the tests below rely on", () => {
    const t = underconfident.threshold;
    expect(underconfident.probability({ confidence: 0.5 })!).toBeGreaterThanOrEqual(Math.max(t, 0.8));
    expect(underconfident.probability({ confidence: 0.25 })!).toBeLessThan(t);
    expect(underconfident.probability({ confidence: 0.5 })!).toBeLessThan(0.9999);
    expect(agreeing.data.signals).toContain("agreesWithPrevious");
    expect(agreeing.probability({ confidence: 0.3, agreesWithPrevious: true })!).toBeGreaterThanOrEqual(
      Math.max(agreeing.threshold, 0.8),
    );
    expect(agreeing.probability({ confidence: 0.3, agreesWithPrevious: false })!).toBeLessThan(
      agreeing.threshold,
    );
  });

  it("accepts a call whose raw confidence is below min_confidence when its trusted probability reaches both the threshold and min_confidence", async () => {
    const { manifest, sink, hops } = await run({ min_confidence: 0.8 }, [
      scripted("level", [call("noise", 0.5)], underconfident),
    ]);
    expect(manifest.status).toBe("completed");
    expect(manifest.artifacts.out).toEqual({ ignored: true, reason: "noise" });
    const trust = sink.traces[0]!.trust!;
    expect(trust).toMatchObject({ confidence: 0.5, threshold: underconfident.threshold, minConfidence: 0.8 });
    expect(trust.probability).toBeCloseTo(underconfident.probability({ confidence: 0.5 })!, 12);
    expect(hops[0]).toMatchObject({ verdict: "accepted", confidence: 0.5, trust });
  });

  it("without a trust model the same call is judged on its raw confidence, as before (no trust in the trace)", async () => {
    const { manifest, sink, hops } = await run({ min_confidence: 0.8 }, [
      scripted("level", [call("noise", 0.5)]),
    ]);
    expect(manifest.nodes.d!.errors[0]).toMatchObject({ details: { verdict: "low_confidence" } });
    expect(sink.traces[0]).not.toHaveProperty("trust");
    expect(hops[0]).not.toHaveProperty("trust");
  });

  it("rejects a call whose raw confidence passes min_confidence but whose trusted probability is below the threshold", async () => {
    const { manifest, sink } = await run({ min_confidence: 0.2 }, [
      scripted("level", [call("noise", 0.25)], underconfident),
    ]);
    expect(manifest.nodes.d!.status).toBe("error");
    expect(manifest.nodes.d!.errors[0]).toMatchObject({ details: { verdict: "low_confidence" } });
    expect(manifest.nodes.d!.errors[0]!.message).toMatch(
      /trusted probability 0\.\d+ \(confidence 0\.25\) is below the trust model's threshold/,
    );
    expect(sink.traces[0]!.trust).toMatchObject({ confidence: 0.25, minConfidence: 0.2 });
  });

  it("min_confidence is a floor the trust model cannot lower: it holds the trusted probability", async () => {
    const { manifest } = await run({ min_confidence: 0.9999 }, [
      scripted("level", [call("noise", 0.5)], underconfident),
    ]);
    expect(manifest.nodes.d!.errors[0]!.message).toMatch(/is below min_confidence 0\.9999/);
  });

  it("without min_confidence the trust model's threshold still applies", async () => {
    const low = await run({}, [scripted("level", [call("noise", 0.25)], underconfident)]);
    expect(low.manifest.nodes.d!.errors[0]).toMatchObject({ details: { verdict: "low_confidence" } });
    const high = await run({}, [scripted("level", [call("noise", 0.5)], underconfident)]);
    expect(high.manifest.status).toBe("completed");
  });

  it("in a cascade, a level that agrees with the level before is trusted; one that disagrees escalates", async () => {
    const node = { min_confidence: 0.8, on_reject: "escalate" };
    const agreed = await run(node, [
      scripted("first", [call("noise", 0.4)]),
      scripted("second", [call("noise", 0.3)], agreeing),
    ]);
    expect(agreed.manifest.status).toBe("completed");
    expect(agreed.sink.traces.map((t) => `${t.backend}:${t.verdict}`)).toEqual([
      "first:low_confidence",
      "second:accepted",
    ]);
    expect(agreed.sink.traces[0]).not.toHaveProperty("trust");
    expect(agreed.sink.traces[1]!.trust).toMatchObject({ confidence: 0.3, threshold: agreeing.threshold });
    expect(agreed.sink.traces[1]!.trust!.probability).toBeCloseTo(
      agreeing.probability({ confidence: 0.3, agreesWithPrevious: true })!,
      12,
    );

    const disagreed = await run(node, [
      scripted("first", [call("noise", 0.4)]),
      scripted("second", [call("maintenance window", 0.3)], agreeing),
    ]);
    expect(disagreed.manifest.status).toBe("escalated");
    expect(disagreed.manifest.nodes.d!.escalations[0]).toMatchObject({ verdict: "low_confidence" });
    expect(disagreed.manifest.nodes.d!.escalations[0]!.reason).toMatch(/trusted probability/);
    expect(disagreed.hops[1]!.trust).toMatchObject({ confidence: 0.3 });
  });

  it("a trust model that reads a signal the proposal lacks (agreement, at the first level) leaves it unscored", async () => {
    const { manifest, sink } = await run({ min_confidence: 0.1 }, [
      scripted("level", [call("noise", 0.99)], agreeing),
    ]);
    expect(manifest.nodes.d!.errors[0]).toMatchObject({ details: { verdict: "unscored" } });
    expect(sink.traces[0]!.trust).toMatchObject({ confidence: 0.99, probability: null });
  });
});

describe("the gate's trust check", () => {
  const gate = (trust: ProposalTrust, confidence: number | null, extra: object = {}) =>
    acceptGate({
      proposal: { name: "ignore_alert", arguments: { reason: "x" }, confidence, backend: "b", latencyMs: 1 },
      candidates: ["ignore_alert"],
      findTool: () => ignore,
      allowSideEffects: { node: false, host: false },
      trust: { model: trust },
      ...extra,
    });

  it("applies to a backend's proposal only: a person's call and an agent's answer have no confidence check", () => {
    const never: ProposalTrust = { threshold: 1, probability: () => 0 };
    expect(gate(never, 0.99).verdict).toBe("low_confidence");
    expect(gate(never, 0.99, { checks: { confidence: false, guard: false } }).verdict).toBe("accepted");
  });

  it("a level behind the proposal cache keeps its trust model (a reused proposal is judged as a fresh one)", () => {
    const level = withTrust(
      Object.assign(new ScriptedDelegate({ entries: [] }), { cacheIdentity: "fixed" }),
      underconfident,
    );
    const cached = cacheProposals(level);
    expect(cached).not.toBe(level);
    expect(cached.trust).toBe(underconfident);
  });

  it("a trust model that throws or answers out of range leaves the proposal unscored, never a crash", () => {
    const throws: ProposalTrust = {
      threshold: 0.5,
      probability: () => {
        throw new Error("boom");
      },
    };
    const nan: ProposalTrust = { threshold: 0.5, probability: () => Number.NaN };
    expect(gate(throws, 0.9).verdict).toBe("unscored");
    expect(gate(nan, 0.9)).toMatchObject({ verdict: "unscored", trust: { probability: null } });
    const noThreshold: ProposalTrust = { threshold: Number.NaN, probability: () => 0.99 };
    expect(gate(noThreshold, 0.9).verdict).toBe("unscored");
  });

  it("never throws on a model's proposal, whatever its confidence, arguments and examples", () => {
    const proposal = fc.record({
      name: fc.oneof(fc.constant("ignore_alert"), fc.constant(null), fc.string()),
      arguments: fc.oneof(fc.constant({ reason: "x" }), fc.jsonValue()),
      confidence: fc.oneof(fc.constant(null), fc.double(), fc.jsonValue()),
      examples: fc.oneof(fc.constant(undefined), fc.array(fc.oneof(fc.double(), fc.jsonValue()))),
      backend: fc.constant("b"),
      latencyMs: fc.constant(1),
    });
    const before = fc.option(
      fc.record({
        proposal: fc.option(fc.record({ name: fc.string(), arguments: fc.constant({}) }), { nil: undefined }),
      }),
      { nil: undefined },
    );
    fc.assert(
      fc.property(
        proposal,
        before,
        fc.constantFrom(underconfident, agreeing),
        fc.option(fc.double({ min: 0, max: 1 }), { nil: undefined }),
        (p, levelBefore, model, minConfidence) => {
          const result = acceptGate({
            proposal: p as never,
            candidates: ["ignore_alert"],
            findTool: () => ignore,
            allowSideEffects: { node: false, host: false },
            trust: { model, ...(levelBefore ? { levelBefore } : {}) },
            ...(minConfidence === undefined ? {} : { minConfidence }),
          });
          expect(VERDICTS).toContain(result.verdict);
          const q = result.trust?.probability;
          expect(q === undefined || q === null || (q >= 0 && q <= 1)).toBe(true);
          if (result.verdict === "accepted" && result.trust) {
            expect(q!).toBeGreaterThanOrEqual(model.threshold);
            if (minConfidence !== undefined) expect(q!).toBeGreaterThanOrEqual(minConfidence);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("reads agreement with the level before and the nearest worked example from the proposal", () => {
    const proposal = {
      name: "ignore_alert",
      arguments: { reason: "x" },
      confidence: 0.4,
      backend: "b",
      latencyMs: 1,
      examples: [0.83, 0.5],
    };
    expect(trustSignals(proposal)).toEqual({ confidence: 0.4, nearestSimilarity: 0.83 });
    expect(
      trustSignals(proposal, { proposal: { name: "ignore_alert", arguments: { reason: "x" } } }),
    ).toEqual({
      confidence: 0.4,
      agreesWithPrevious: true,
      nearestSimilarity: 0.83,
    });
    expect(trustSignals(proposal, { proposal: undefined }).agreesWithPrevious).toBe(false);
    expect(trustSignals({ ...proposal, examples: [1.5] })).toEqual({ confidence: 0.4 });
    expect(trustSignals({ ...proposal, examples: ["near"] as unknown as number[] })).toEqual({
      confidence: 0.4,
    });
    expect(trustSignals(proposal, { proposal: { name: null, arguments: {} } }).agreesWithPrevious).toBe(
      false,
    );
  });
});
