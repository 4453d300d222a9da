import { describe, expect, it } from "vitest";
import { DelegateBackendError } from "../errors/delegate-backend-error.js";
import { compileGuard } from "../runtime/cel-guard.js";
import { defineTool } from "../tools/define-tool.js";
import { acceptGate, CHECKS, VERDICTS, type GateInput, type Verdict } from "./accept-gate.js";
import type { Proposal } from "./protocol.js";

const ran: string[] = [];
const safe = defineTool({
  name: "ignore_alert",
  description: "ignore",
  delegateSafe: true,
  input: { type: "object", properties: { reason: { type: "string" } }, required: ["reason"] },
  run: () => ran.push("ignore_alert"),
});
const risky = defineTool({
  name: "page",
  description: "page someone",
  input: { type: "object", properties: { team: { type: "string" } }, required: ["team"] },
  run: () => ran.push("page"),
});
const registered = new Map([safe, risky].map((t) => [t.name, t]));

const proposal = (p: Partial<Proposal> = {}): Proposal => ({
  name: "ignore_alert",
  arguments: { reason: "noise" },
  confidence: 0.9,
  backend: "test",
  latencyMs: 1,
  ...p,
});

const base = (over: Partial<GateInput> = {}): GateInput => ({
  proposal: proposal(),
  candidates: ["ignore_alert", "page", "ghost"],
  findTool: (name) => registered.get(name),
  allowSideEffects: { node: false, host: false },
  inputChars: 10,
  maxInputChars: 100,
  ...over,
});

const guard = compileGuard('ctx.proposal.arguments.reason != "forbidden" && ctx.facts.env == "prod"');
const throwingGuard = compileGuard("ctx.proposal.arguments.missing.deeper == 1");

/** Each row: what differs from `base`, and the verdict the gate must give. */
const table: [string, Partial<GateInput>, Verdict][] = [
  ["a valid, safe, confident call", {}, "accepted"],
  ["input over the limit", { inputChars: 101 }, "input_too_long"],
  ["input exactly at the limit", { inputChars: 100 }, "accepted"],
  [
    "a backend error",
    { proposal: undefined, backendError: new DelegateBackendError("b", "refused") },
    "backend_error",
  ],
  ["no proposal at all", { proposal: undefined }, "backend_error"],
  ["arguments not an object", { proposal: proposal({ arguments: [] as never }) }, "backend_error"],
  ["confidence out of range", { proposal: proposal({ confidence: 1.5 }) }, "backend_error"],
  ["a decline", { proposal: proposal({ name: null, arguments: {} }) }, "declined"],
  ["a name outside the candidates", { proposal: proposal({ name: "rm_rf" }) }, "unknown_tool"],
  ["a candidate that is not registered", { proposal: proposal({ name: "ghost" }) }, "unknown_tool"],
  ["a missing required argument", { proposal: proposal({ arguments: {} }) }, "invalid_args"],
  ["an unknown key", { proposal: proposal({ arguments: { reason: "x", extra: 1 } }) }, "invalid_args"],
  ["a wrong type", { proposal: proposal({ arguments: { reason: 3 } }) }, "invalid_args"],
  [
    "an unsafe tool, no key",
    { proposal: proposal({ name: "page", arguments: { team: "db" } }) },
    "side_effect_denied",
  ],
  [
    "an unsafe tool, node key only",
    {
      proposal: proposal({ name: "page", arguments: { team: "db" } }),
      allowSideEffects: { node: true, host: false },
    },
    "side_effect_denied",
  ],
  [
    "an unsafe tool, host key only",
    {
      proposal: proposal({ name: "page", arguments: { team: "db" } }),
      allowSideEffects: { node: false, host: true },
    },
    "side_effect_denied",
  ],
  [
    "an unsafe tool, both keys",
    {
      proposal: proposal({ name: "page", arguments: { team: "db" } }),
      allowSideEffects: { node: true, host: true },
    },
    "accepted",
  ],
  [
    "no confidence with min_confidence",
    { minConfidence: 0.5, proposal: proposal({ confidence: null }) },
    "unscored",
  ],
  ["no confidence without min_confidence", { proposal: proposal({ confidence: null }) }, "accepted"],
  ["confidence below the minimum", { minConfidence: 0.95 }, "low_confidence"],
  ["confidence equal to the minimum", { minConfidence: 0.9 }, "accepted"],
  [
    "low confidence, but confidence checks skipped",
    { minConfidence: 0.95, checks: CHECKS.agent },
    "accepted",
  ],
  [
    "low confidence and a false guard, both skipped (a person's call)",
    { minConfidence: 0.95, checks: CHECKS.person, guard, guardContext: { facts: { env: "dev" } } },
    "accepted",
  ],
  [
    "a repair's call: no confidence check, but the guard holds it",
    { minConfidence: 0.95, checks: CHECKS.repair, guard, guardContext: { facts: { env: "dev" } } },
    "guard_false",
  ],
  [
    "a repair's call: side effects still need both keys",
    {
      checks: CHECKS.repair,
      proposal: proposal({ name: "page", arguments: { team: "sre" }, confidence: null }),
    },
    "side_effect_denied",
  ],
  ["a false guard", { guard, guardContext: { facts: { env: "dev" } } }, "guard_false"],
  ["a true guard", { guard, guardContext: { facts: { env: "prod" } } }, "accepted"],
  ["a guard that fails to evaluate", { guard: throwingGuard }, "guard_false"],
  // Order: wherever two verdicts could apply, the earlier one wins.
  [
    "too long AND backend error",
    { inputChars: 101, proposal: undefined, backendError: new Error("x") },
    "input_too_long",
  ],
  ["too long AND declined", { inputChars: 101, proposal: proposal({ name: null }) }, "input_too_long"],
  ["backend error wins over a stale proposal", { backendError: new Error("timeout") }, "backend_error"],
  [
    "declined AND low confidence",
    { minConfidence: 0.99, proposal: proposal({ name: null, confidence: 0.1 }) },
    "declined",
  ],
  [
    "unknown tool AND bad args",
    { proposal: proposal({ name: "rm_rf", arguments: { x: 1 } }) },
    "unknown_tool",
  ],
  [
    "bad args AND side effect denied",
    { proposal: proposal({ name: "page", arguments: { team: 1 } }) },
    "invalid_args",
  ],
  [
    "side effect denied AND unscored",
    { minConfidence: 0.5, proposal: proposal({ name: "page", arguments: { team: "x" }, confidence: null }) },
    "side_effect_denied",
  ],
  [
    "side effect denied AND low confidence",
    { minConfidence: 0.95, proposal: proposal({ name: "page", arguments: { team: "x" } }) },
    "side_effect_denied",
  ],
  [
    "low confidence AND guard false",
    { minConfidence: 0.95, guard, guardContext: { facts: {} } },
    "low_confidence",
  ],
  [
    "unscored AND guard false",
    { minConfidence: 0.5, proposal: proposal({ confidence: null }), guard },
    "unscored",
  ],
];

describe("acceptGate", () => {
  it.each(table)("%s → %s", (_name, over, expected) => {
    const result = acceptGate(base(over));
    expect(result.verdict).toBe(expected);
    expect(result.reason.length).toBeGreaterThan(0);
    if (expected === "accepted") {
      expect(result.call).toEqual({ name: result.tool!.name, arguments: expect.any(Object) });
    } else {
      expect(result.call).toBeUndefined();
    }
  });

  it("reaches every verdict", () => {
    const reached = new Set(table.map(([, over]) => acceptGate(base(over)).verdict));
    expect([...reached].sort()).toEqual([...VERDICTS].sort());
  });

  it("never runs a tool", () => {
    for (const [, over] of table) acceptGate(base(over));
    expect(ran).toEqual([]);
  });

  it("keeps the backend's and the guard's errors, and the schema issues", () => {
    const backend = acceptGate(
      base({ proposal: undefined, backendError: new DelegateBackendError("b", "refused") }),
    );
    expect(backend.error).toMatchObject({ code: "DELEGATE_BACKEND", message: "refused" });
    const g = acceptGate(base({ guard: throwingGuard }));
    expect(g.error?.code).toBe("CEL_EVAL");
    const args = acceptGate(base({ proposal: proposal({ arguments: { reason: "x", extra: 1 } }) }));
    expect(args.issues).toEqual(['(root): unknown key "extra"']);
  });

  it("gives the guard ctx.proposal, ctx.facts, ctx.artifacts, ctx.status and ctx.errors", () => {
    const g = compileGuard(
      'ctx.proposal.name == "ignore_alert" && ctx.proposal.confidence > 0.5 && ctx.artifacts.a == 1 && ctx.status.n == "ok" && size(ctx.errors) == 0 && ctx.facts.k == "v"',
    );
    const r = acceptGate(
      base({
        guard: g,
        guardContext: { facts: { k: "v" }, artifacts: { a: 1 }, status: { n: "ok" }, errors: {} },
      }),
    );
    expect(r.verdict).toBe("accepted");
  });
});
