import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createHost } from "../compose/index.js";
import type { WorkUnit } from "../plan/node-executor.js";
import { parsePlan } from "../plan/validate-plan.js";
import type { ProposalSource } from "../records/hop.js";
import { compileGuard } from "../runtime/cel-guard.js";
import { defineTool } from "../tools/define-tool.js";
import type { DelegateTrace } from "../traces/trace.js";
import { acceptGate, CHECKS, VERDICTS, type Verdict } from "./accept-gate.js";
import type { DelegateNode } from "./delegate-node.js";
import { DelegateUnit } from "./delegate-unit.js";
import type { Proposal } from "./protocol.js";
import { ScriptedDelegate } from "./scripted-delegate.js";

const ignore = defineTool({
  name: "ignore_alert",
  description: "Ignore a noisy alert",
  delegateSafe: true,
  input: { type: "object", properties: { reason: { type: "string" } }, required: ["reason"] },
  run: () => "ignored",
});
const page = defineTool({
  name: "page",
  description: "Page the on-call (a side effect)",
  input: { type: "object", properties: { team: { type: "string" } }, required: ["team"] },
  run: () => "paged",
});
const SOURCES = Object.keys(CHECKS) as ProposalSource[];

/** A delegate unit whose node wants confidence ≥ 0.95 and `env == "prod"`, in a run whose env is `dev`. */
function unitOf(traces: DelegateTrace[] = []) {
  const { host, nodeTypes } = createHost({
    tools: [ignore, page],
    delegates: [new ScriptedDelegate({ entries: [] })],
    traceSink: { write: (t) => void traces.push(t) },
  });
  const node = {
    id: "d",
    type: "delegate",
    instruction: "Triage {artifacts.alert}",
    facts: { env: "{artifacts.env}" },
    tools: ["ignore_alert", "page"],
    min_confidence: 0.95,
    accept_when: 'ctx.facts.env == "prod"',
    store_as: "out",
  };
  const { plan } = parsePlan(
    { name: "t", nodes: [node] },
    { host, nodeTypes, knownArtifacts: ["alert", "env"] },
  );
  const unit: WorkUnit = {
    runId: "r1",
    nodeId: "d",
    scope: { artifacts: { alert: "disk full", env: "dev" } },
    signal: new AbortController().signal,
    statuses: {},
    errors: {},
    host,
  };
  return new DelegateUnit(plan.nodes[0] as DelegateNode, unit);
}

const call = (name: string | null, args: Record<string, unknown>, confidence: number | null): Proposal => ({
  name,
  arguments: args,
  confidence,
  backend: "b",
  latencyMs: 1,
});

describe("DelegateUnit.judge: one judge, a check policy per source", () => {
  it("a low-confidence call the guard refuses: the backend's fails on confidence, the agent's and a repair's on the guard, a person's passes", async () => {
    const verdicts: Record<string, Verdict> = {};
    for (const source of SOURCES) {
      const gate = await unitOf().judge(source, source, call("ignore_alert", { reason: "noise" }, 0.5), 1);
      verdicts[source] = gate.verdict;
    }
    expect(verdicts).toEqual({
      delegate: "low_confidence",
      agent: "guard_false",
      person: "accepted",
      repair: "guard_false",
    });
  });

  it("every source gets the tool, schema and side-effect checks", async () => {
    for (const source of SOURCES) {
      const p = unitOf();
      expect((await p.judge(source, "x", call("rm_rf", {}, 1), 1)).verdict).toBe("unknown_tool");
      expect((await p.judge(source, "x", call("ignore_alert", { why: 1 }, 1), 1)).verdict).toBe(
        "invalid_args",
      );
      expect((await p.judge(source, "x", call("page", { team: "sre" }, 1), 1)).verdict).toBe(
        "side_effect_denied",
      );
    }
  });

  it("keeps every hop with its source, traces it, and keeps what an agent spent", async () => {
    const traces: DelegateTrace[] = [];
    const p = unitOf(traces);
    await p.judge("agent", "agent:triager", call(null, {}, null), 7, {
      spend: { calls: 1, tokens: 12, cost: 0, duration: 0.5 },
    });
    await p.judge("repair", "repair", call("ignore_alert", { reason: "noise" }, null), 0);
    expect(p.hops).toEqual([
      { backend: "agent:triager", verdict: "declined", source: "agent", confidence: null, latencyMs: 7 },
      { backend: "repair", verdict: "guard_false", source: "repair", confidence: null, latencyMs: 0 },
    ]);
    expect(traces.map((t) => [t.source, t.verdict, t.instruction])).toEqual([
      ["agent", "declined", "Triage disk full"],
      ["repair", "guard_false", "Triage disk full"],
    ]);
    const gate = acceptGate({
      proposal: call(null, {}, null),
      candidates: [],
      findTool: () => undefined,
      allowSideEffects: { node: false, host: false },
    });
    expect(p.summary(gate, undefined)).toMatchObject({
      hops: p.hops,
      spend: { calls: 1, tokens: 12, cost: 0, duration: 0.5 },
    });
  });
});

describe("check policies only ever relax the confidence and guard checks", () => {
  const tools = new Map([ignore, page].map((t) => [t.name, t]));
  const guard = compileGuard("ctx.proposal.arguments.reason == 'noise'");
  const proposals = fc
    .record({
      name: fc.oneof(fc.constantFrom("ignore_alert", "page", "ghost", null), fc.string()),
      arguments: fc.oneof(
        fc.record({ reason: fc.constantFrom("noise", "other") }),
        fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 })),
      ),
      confidence: fc.oneof(fc.double({ min: 0, max: 1, noNaN: true }), fc.constant(null)),
    })
    .map((p) => ({ ...p, backend: "gen", latencyMs: 1 }) as Proposal);

  it("a source's verdict is the full gate's, unless the full gate's is a check that source is spared", () => {
    const spared: Record<keyof typeof CHECKS.delegate, readonly Verdict[]> = {
      confidence: ["unscored", "low_confidence"],
      guard: ["guard_false"],
    };
    fc.assert(
      fc.property(proposals, fc.boolean(), fc.boolean(), (proposal, node, host) => {
        const input = {
          proposal,
          candidates: ["ignore_alert", "page"],
          findTool: (n: string) => tools.get(n),
          allowSideEffects: { node, host },
          minConfidence: 0.8,
          guard,
        };
        const full = acceptGate(input).verdict;
        for (const source of SOURCES) {
          const policy = CHECKS[source];
          const verdict = acceptGate({ ...input, checks: policy }).verdict;
          expect(VERDICTS).toContain(verdict);
          const skipped = (["confidence", "guard"] as const).some(
            (check) => !policy[check] && spared[check].includes(full),
          );
          if (!skipped) expect(verdict).toBe(full);
          else expect(VERDICTS.indexOf(verdict)).toBeGreaterThan(VERDICTS.indexOf(full));
        }
      }),
      { numRuns: 500 },
    );
  });
});
