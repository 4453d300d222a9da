import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { describe, expect, it } from "vitest";
import { DelegateBackendError } from "../errors/delegate-backend-error.js";
import { MemoryRunStore } from "../store/memory-run-store.js";
import { createHost, resumeRun, runPlan } from "../compose/index.js";
import { validatePlan } from "../plan/validate-plan.js";
import { defineTool } from "../tools/define-tool.js";
import type { EscalationHandler } from "./host-capabilities.js";
import type { Proposal, ProposeRequest, ToolCallDelegate } from "./protocol.js";
import { ScriptedDelegate, type ScriptedEntry } from "./scripted-delegate.js";
import type { DelegateTrace, TraceSink } from "../traces/trace.js";

const calls: { tool: string; args: unknown }[] = [];
const ignore = defineTool({
  name: "ignore_alert",
  description: "Ignore a noisy alert",
  delegateDescription: "Ignore it",
  delegateSafe: true,
  input: { type: "object", properties: { reason: { type: "string" } }, required: ["reason"] },
  run: (args) => {
    calls.push({ tool: "ignore_alert", args });
    return { ignored: true, ...args };
  },
});
const page = defineTool({
  name: "page",
  description: "Page the on-call (a side effect)",
  input: {
    type: "object",
    properties: { team: { type: "string" }, token: { type: "string" } },
    required: ["team"],
  },
  sensitive: ["token"],
  run: (args) => {
    calls.push({ tool: "page", args });
    return { paged: args.team };
  },
});
const tools = [ignore, page];

class MemorySink implements TraceSink {
  traces: DelegateTrace[] = [];
  write(trace: DelegateTrace) {
    this.traces.push(trace);
  }
}

function plan(node: object) {
  return {
    name: "t",
    nodes: [
      {
        id: "d",
        type: "delegate",
        instruction: "Triage {artifacts.alert.summary}",
        facts: { sev: "{artifacts.alert.sev}" },
        tools: ["ignore_alert", "page"],
        store_as: "out",
        ...node,
      },
    ],
  };
}
const artifacts = { alert: { summary: "disk full", sev: "high" } };
const ok = (name: string | null, args: Record<string, unknown> = {}, confidence: number | null = 0.9) => ({
  proposal: { name, arguments: args, confidence },
});

async function run(node: object, entries: object[], options: Record<string, unknown> = {}) {
  const delegate = new ScriptedDelegate({
    entries: entries.map((e) => ({ node: "d", ...e }) as ScriptedEntry),
  });
  const sink = new MemorySink();
  const store = new MemoryRunStore();
  calls.length = 0;
  const manifest = await runPlan(plan(node), {
    tools,
    delegates: [delegate],
    traceSink: sink,
    artifacts,
    store,
    ...options,
  });
  return { manifest, sink, delegate, store };
}

describe("delegateNodeExecutor", () => {
  it("dispatches an accepted proposal and stores the tool's result, with the verdict in the manifest", async () => {
    const { manifest, sink, delegate } = await run({}, [ok("ignore_alert", { reason: "noise" })]);
    expect(manifest.status).toBe("completed");
    expect(manifest.artifacts.out).toEqual({ ignored: true, reason: "noise" });
    expect(manifest.nodes.d!.details).toMatchObject({
      verdict: "accepted",
      tool: "ignore_alert",
      confidence: 0.9,
      backend: "scripted",
    });
    const req = delegate.requests[0]!;
    expect(req.instruction).toBe("Triage disk full");
    expect(req.facts).toEqual({ sev: "high" });
    expect(req.tools.map((t) => t.description)).toEqual(["Ignore it", "Page the on-call (a side effect)"]);
    expect(req.context).toMatchObject({ nodeId: "d", runId: manifest.runId });
    expect((req.schema!.oneOf as unknown[]).length).toBe(3);
    expect(sink.traces).toHaveLength(1);
    expect(sink.traces[0]).toMatchObject({
      verdict: "accepted",
      finalCall: { name: "ignore_alert" },
      source: "delegate",
      nodeId: "d",
    });
  });

  it("publishes every hop on deputy:proposal, without instruction, facts or arguments", async () => {
    const events: unknown[] = [];
    const listener = (e: unknown) => events.push(e);
    subscribe("deputy:proposal", listener);
    try {
      await run({ on_reject: "retry_backend", retry: { max_attempts: 2 } }, [
        ok(null),
        ok("ignore_alert", { reason: "x" }, 0.7),
      ]);
    } finally {
      unsubscribe("deputy:proposal", listener);
    }
    expect(events).toEqual([
      expect.objectContaining({
        type: "proposal-end",
        nodeId: "d",
        backend: "scripted",
        source: "delegate",
        verdict: "declined",
        confidence: 0.9,
      }),
      expect.objectContaining({ verdict: "accepted", tool: "ignore_alert", confidence: 0.7 }),
    ]);
    expect(JSON.stringify(events)).not.toContain("Triage");
  });

  it("on_reject fail: a rejected proposal never runs and the node fails with the verdict", async () => {
    const { manifest } = await run({}, [ok("page", { team: "db" })]);
    expect(manifest.status).toBe("failed");
    expect(manifest.nodes.d!.errors[0]).toMatchObject({
      code: "DELEGATE_REJECTED",
      details: { verdict: "side_effect_denied" },
    });
    expect(calls).toEqual([]);
  });

  it("the side-effect double key: node and host flags together let an unsafe tool run", async () => {
    const nodeOnly = await run({ allow_side_effects: true }, [ok("page", { team: "db" })]);
    expect(nodeOnly.manifest.nodes.d!.details!.verdict).toBe("side_effect_denied");
    const both = await run({ allow_side_effects: true }, [ok("page", { team: "db" })], {
      allowDelegateSideEffects: true,
    });
    expect(both.manifest.artifacts.out).toEqual({ paged: "db" });
  });

  it("retry_backend walks the chain, each backend up to retry.max_attempts, tracing every hop", async () => {
    const first = new ScriptedDelegate({
      name: "first",
      entries: [
        { node: "d", error: "timeout" },
        { node: "d", ...ok(null) },
      ],
    });
    const small: ToolCallDelegate = {
      ...new ScriptedDelegate({ entries: [] }),
      name: "small",
      maxTools: 1,
      maxInputChars: 1e6,
      propose: () => Promise.reject(new Error("never")),
      close: async () => {},
    };
    const second = new ScriptedDelegate({
      name: "second",
      entries: [
        { node: "d", ...ok("ignore_alert", { bad: 1 }) },
        { node: "d", ...ok("ignore_alert", { reason: "dup" }) },
      ],
    });
    const sink = new MemorySink();
    const manifest = await runPlan(plan({ on_reject: "retry_backend", retry: { max_attempts: 2 } }), {
      tools,
      delegates: [first, small, second],
      traceSink: sink,
      artifacts,
    });
    expect(manifest.status).toBe("completed");
    expect(sink.traces.map((t) => `${t.backend}:${t.verdict}`)).toEqual([
      "first:backend_error",
      "first:declined",
      "second:invalid_args",
      "second:accepted",
    ]);
    expect(sink.traces[0]!.error?.message).toBe("timeout");
    expect((manifest.nodes.d!.details!.hops as unknown[]).length).toBe(4);
  });

  it("retry_backend that runs out fails with the last verdict", async () => {
    const { manifest, sink } = await run({ on_reject: "retry_backend", retry: { max_attempts: 2 } }, [
      ok(null),
      ok("nope"),
    ]);
    expect(manifest.nodes.d!.errors[0]).toMatchObject({
      code: "DELEGATE_REJECTED",
      details: { verdict: "unknown_tool" },
    });
    expect(manifest.nodes.d!.errors[0]!.message).toContain("after 2 proposals");
    expect(sink.traces).toHaveLength(2);
  });

  it("input_too_long is decided before calling the backend", async () => {
    const delegate = new ScriptedDelegate({
      entries: [{ node: "d", ...ok("ignore_alert", { reason: "x" }) }],
      maxInputChars: 10,
    });
    const manifest = await runPlan(plan({}), { tools, delegates: [delegate], artifacts });
    expect(manifest.nodes.d!.details!.verdict).toBe("input_too_long");
    expect(delegate.requests).toHaveLength(0);
  });

  it("min_confidence and accept_when see the proposal and facts", async () => {
    const low = await run({ min_confidence: 0.95 }, [ok("ignore_alert", { reason: "x" }, 0.9)]);
    expect(low.manifest.nodes.d!.details!.verdict).toBe("low_confidence");
    const unscored = await run({ min_confidence: 0.5 }, [ok("ignore_alert", { reason: "x" }, null)]);
    expect(unscored.manifest.nodes.d!.details!.verdict).toBe("unscored");
    const guard = await run({ accept_when: 'ctx.facts.sev == "low"' }, [ok("ignore_alert", { reason: "x" })]);
    expect(guard.manifest.nodes.d!.details!.verdict).toBe("guard_false");
    const broken = await run({ accept_when: "ctx.facts.nope.deeper == 1" }, [
      ok("ignore_alert", { reason: "x" }),
    ]);
    expect(broken.manifest.nodes.d!.details!.verdict).toBe("guard_false");
    expect(broken.sink.traces[0]!.error?.code).toBe("CEL_EVAL");
    const pass = await run(
      { accept_when: 'ctx.facts.sev == "high" && ctx.proposal.arguments.reason == "x"' },
      [ok("ignore_alert", { reason: "x" })],
    );
    expect(pass.manifest.status).toBe("completed");
  });

  it("escalate pauses the run; resolve (call, value, skip) + resume finishes it through the gate", async () => {
    const { manifest, store, sink } = await run({ on_reject: "escalate" }, [
      ok("page", { team: "db", token: "s3cr3t-token" }),
    ]);
    expect(manifest.status).toBe("escalated");
    const esc = manifest.nodes.d!.escalations[0]!;
    expect(esc).toMatchObject({
      verdict: "side_effect_denied",
      proposal: { name: "page", arguments: { team: "db", token: "[REDACTED]" } },
    });
    expect(calls).toEqual([]);

    // A person supplies a call the gate still rejects (unknown key): the unit pauses again.
    await store.write(manifest.runId, [
      {
        kind: "resolution",
        nodeId: "d",
        resolution: { kind: "call", call: { name: "ignore_alert", arguments: { reason: "x", extra: 1 } } },
      },
    ]);
    const again = await resumeRun(manifest.runId, {
      store,
      tools,
      delegates: [new ScriptedDelegate({ entries: [] })],
      traceSink: sink,
    });
    expect(again.status).toBe("escalated");
    expect(again.nodes.d!.escalations[0]).toMatchObject({ verdict: "invalid_args" });
    expect(sink.traces.at(-1)).toMatchObject({ source: "person", verdict: "invalid_args" });

    await store.write(manifest.runId, [
      {
        kind: "resolution",
        nodeId: "d",
        resolution: { kind: "call", call: { name: "ignore_alert", arguments: { reason: "by hand" } } },
      },
    ]);
    const done = await resumeRun(manifest.runId, {
      store,
      tools,
      delegates: [new ScriptedDelegate({ entries: [] })],
      traceSink: sink,
    });
    expect(done.status).toBe("completed");
    expect(done.artifacts.out).toEqual({ ignored: true, reason: "by hand" });
    expect(done.nodes.d!.details).toMatchObject({ verdict: "accepted", resolvedBy: "person" });

    const v = await run({ on_reject: "escalate" }, [ok(null)]);
    await v.store.write(v.manifest.runId, [
      { kind: "resolution", nodeId: "d", resolution: { kind: "value", value: { manual: true } } },
    ]);
    const vd = await resumeRun(v.manifest.runId, {
      store: v.store,
      tools,
      delegates: [new ScriptedDelegate({ entries: [] })],
    });
    expect(vd.artifacts.out).toEqual({ manual: true });

    const s = await run({ on_reject: "escalate" }, [ok(null)]);
    await s.store.write(s.manifest.runId, [
      { kind: "resolution", nodeId: "d", resolution: { kind: "skip" } },
    ]);
    const sd = await resumeRun(s.manifest.runId, {
      store: s.store,
      tools,
      delegates: [new ScriptedDelegate({ entries: [] })],
    });
    expect(sd.nodes.d!.status).toBe("skipped");
  });

  it("a person's call still needs the side-effect double key", async () => {
    const { manifest, store } = await run({ on_reject: "escalate" }, [ok(null)]);
    await store.write(manifest.runId, [
      {
        kind: "resolution",
        nodeId: "d",
        resolution: { kind: "call", call: { name: "page", arguments: { team: "db" } } },
      },
    ]);
    const again = await resumeRun(manifest.runId, {
      store,
      tools,
      delegates: [new ScriptedDelegate({ entries: [] })],
    });
    expect(again.nodes.d!.escalations[0]).toMatchObject({ verdict: "side_effect_denied" });
    expect(calls).toEqual([]);
  });

  it("escalate asks each backend once, cheapest first, before a person (a cascade)", async () => {
    const fast = new ScriptedDelegate({
      name: "fast",
      entries: [{ node: "d", ...ok("ignore_alert", { reason: "x" }, 0.5) }],
    });
    const real = new ScriptedDelegate({
      name: "real",
      entries: [{ node: "d", ...ok("ignore_alert", { reason: "y" }, 0.97) }],
    });
    const sink = new MemorySink();
    const taken = await runPlan(plan({ on_reject: "escalate", min_confidence: 0.95 }), {
      tools,
      delegates: [fast, real],
      traceSink: sink,
      artifacts,
    });
    expect(taken.status).toBe("completed");
    expect(taken.artifacts.out).toEqual({ ignored: true, reason: "y" });
    expect(sink.traces.map((t) => `${t.backend}:${t.verdict}`)).toEqual([
      "fast:low_confidence",
      "real:accepted",
    ]);

    const unsure = new ScriptedDelegate({
      name: "real",
      entries: [{ node: "d", ...ok("ignore_alert", { reason: "y" }, 0.6) }],
    });
    const fast2 = new ScriptedDelegate({ name: "fast", entries: [{ node: "d", ...ok(null) }] });
    const paused = await runPlan(plan({ on_reject: "escalate", min_confidence: 0.95 }), {
      tools,
      delegates: [fast2, unsure],
      artifacts,
      store: new MemoryRunStore(),
    });
    expect(paused.status).toBe("escalated");
    expect(paused.nodes.d!.escalations[0]).toMatchObject({ verdict: "low_confidence" });
  });

  it("escalate_to: an installed handler's answer goes through the gate without confidence checks", async () => {
    const seen: string[] = [];
    const handler: EscalationHandler = async (req) => {
      seen.push(`${req.agent}:${req.verdict}`);
      return {
        name: "ignore_alert",
        arguments: { reason: "agent says noise" },
        spend: { calls: 1, tokens: 10, cost: 0, duration: 0.1 },
      };
    };
    const { manifest, sink } = await run(
      { on_reject: "escalate", escalate_to: "planner", min_confidence: 0.99 },
      [ok("ignore_alert", { reason: "x" }, 0.5)],
      {
        escalation: handler,
      },
    );
    expect(seen).toEqual(["planner:low_confidence"]);
    expect(manifest.nodes.d!.details).toMatchObject({ resolvedBy: "agent", spend: { calls: 1, tokens: 10 } });
    expect(manifest.status).toBe("completed");
    expect(manifest.artifacts.out).toEqual({ ignored: true, reason: "agent says noise" });
    expect(sink.traces.map((t) => `${t.source}:${t.verdict}`)).toEqual([
      "delegate:low_confidence",
      "agent:accepted",
    ]);

    const refusing: EscalationHandler = async () => ({ name: null });
    const paused = await run({ on_reject: "escalate", escalate_to: "planner" }, [ok(null)], {
      escalation: refusing,
    });
    expect(paused.manifest.status).toBe("escalated");
    expect(paused.manifest.nodes.d!.escalations[0]!.reason).toContain(
      'escalate_to agent "planner" did not resolve it (declined',
    );
  });

  it("a backend that hangs is aborted with the run and a failing trace sink never fails the run", async () => {
    const throwing: TraceSink = {
      write: () => {
        throw new Error("disk full");
      },
    };
    const rejecting: TraceSink = { write: () => Promise.reject(new Error("disk full")) };
    for (const traceSink of [throwing, rejecting]) {
      const m = await runPlan(plan({}), {
        tools,
        artifacts,
        traceSink,
        delegates: [
          new ScriptedDelegate({ entries: [{ node: "d", ...ok("ignore_alert", { reason: "r" }) }] }),
        ],
      });
      expect(m.status).toBe("completed");
    }
    const hanging: ToolCallDelegate = {
      name: "hang",
      maxTools: 5,
      maxInputChars: 1000,
      propose: (req: ProposeRequest) =>
        new Promise<Proposal>((_, reject) =>
          req.signal?.addEventListener("abort", () => reject(new DelegateBackendError("hang", "aborted"))),
        ),
      close: async () => {},
    };
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const m = await runPlan(plan({ on_reject: "escalate" }), {
      tools,
      artifacts,
      delegates: [hanging],
      signal: controller.signal,
    });
    expect(m.status).toBe("cancelled");
    expect(m.nodes.d!.escalations).toEqual([]);
  });
});

describe("delegate node validation", () => {
  const validate = (node: object, options: Record<string, unknown> = {}) => {
    const { host, nodeTypes } = createHost({
      tools,
      delegates: [new ScriptedDelegate({ entries: [], maxTools: 2 })],
      ...options,
    });
    return validatePlan(plan(node), { host, nodeTypes, knownArtifacts: ["alert"] }).issues.map(
      (i) => `${i.severity}:${i.code}`,
    );
  };

  it("reports unknown tools with a did-you-mean, too many tools, bad CEL and no delegate", () => {
    const { host, nodeTypes } = createHost({ tools });
    const r = validatePlan(
      plan({ tools: ["ignore_alrt", "page", "x"], accept_when: "ctx.proposal.name ==" }),
      { host, nodeTypes, knownArtifacts: ["alert"] },
    );
    const codes = r.issues.map((i) => i.code);
    expect(codes).toEqual(expect.arrayContaining(["unknown_tool", "delegate_not_configured", "invalid_cel"]));
    expect(r.issues.find((i) => i.code === "unknown_tool")!.message).toContain('did you mean "ignore_alert"');
    expect(validate({ tools: ["ignore_alert", "page", "ignore_alert2"] })).toContain("error:too_many_tools");
  });

  it("warns about tools the side-effect policy always denies, and not once both keys are set", () => {
    expect(validate({})).toEqual(["warning:side_effect_always_denied"]);
    expect(validate({ allow_side_effects: true }, { allowDelegateSideEffects: true })).toEqual([]);
    expect(validate({ tools: ["ignore_alert"] })).toEqual([]);
    expect(validate({ tools: ["ignore_alert"], on_reject: "retry_backend" })).toEqual([
      "warning:retry_backend_single_try",
    ]);
    expect(
      validate({ tools: ["ignore_alert"], on_reject: "retry_backend", retry: { max_attempts: 2 } }),
    ).toEqual([]);
  });

  it("reports a schema a backend cannot enforce, and an escalate_to with no handler", () => {
    const picky: ToolCallDelegate = {
      name: "picky",
      maxTools: 5,
      maxInputChars: 10,
      propose: async () => {
        throw new Error();
      },
      close: async () => {},
      checkSchema: () => "no oneOf support",
    };
    const { host, nodeTypes } = createHost({
      tools,
      delegates: [picky],
      escalation: false,
    });
    const codes = validatePlan(
      plan({ tools: ["ignore_alert"], on_reject: "escalate", escalate_to: "planner" }),
      { host, nodeTypes, knownArtifacts: ["alert"] },
    ).issues.map((i) => i.code);
    expect(codes).toEqual(["escalate_to_unavailable", "schema_unsupported"]);
    const withHandler = createHost({ tools, delegates: [picky], agents: { planer: {} } });
    const issues = validatePlan(
      plan({ tools: ["ignore_alert"], on_reject: "escalate", escalate_to: "planner" }),
      {
        ...withHandler,
        knownArtifacts: ["alert"],
      },
    ).issues;
    expect(issues.find((i) => i.code === "escalate_to_unknown_agent")?.message).toContain(
      'did you mean "planer"',
    );
  });
});
