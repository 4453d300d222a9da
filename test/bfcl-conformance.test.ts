/**
 * BFCL conformance of the accept gate: the ground truth of the 300 BFCL simple/multiple samples, replayed as
 * proposals, is accepted; systematic mutations of each get exactly the expected verdict.
 */
import { describe, expect, it } from "vitest";
import { acceptGate, type GateInput, type Verdict } from "../src/delegate/accept-gate.js";
import { bfclGroundTruthCall, bfclToToolSpec } from "../src/eval/bfcl.js";
import { buildProposalSchema } from "../src/delegate/proposal-schema.js";
import type { Proposal, ToolSpec } from "../src/delegate/protocol.js";
import type { JsonSchema } from "../src/schema/json-schema.js";
import { validateValue } from "../src/schema/validator.js";
import { defineTool, type Tool } from "../src/tools/define-tool.js";
import { loadBfclWithAnswers } from "./bfcl-fixtures.js";

interface Case {
  id: string;
  specs: ToolSpec[];
  tools: Map<string, Tool>;
  call: { name: string; arguments: Record<string, unknown> };
}

const decoy = defineTool({
  name: "registered_but_not_a_candidate",
  description: "x",
  input: { type: "object" },
  delegateSafe: true,
  run: () => 0,
});

const cases: Case[] = loadBfclWithAnswers().map(({ sample, answer }) => {
  const specs = sample.function.map(bfclToToolSpec);
  const tools = new Map<string, Tool>([[decoy.name, decoy]]);
  for (const s of specs) {
    tools.set(
      s.name,
      defineTool({
        name: s.name,
        description: s.description || s.name,
        input: s.parameters,
        delegateSafe: true,
        run: () => {
          throw new Error("never dispatched here");
        },
      }),
    );
  }
  return { id: sample.id, specs, tools, call: bfclGroundTruthCall(answer, specs) };
});

function gate(c: Case, name: string | null, args: Record<string, unknown>, over: Partial<GateInput> = {}) {
  const proposal: Proposal = { name, arguments: args, confidence: 0.9, backend: "bfcl", latencyMs: 0 };
  return acceptGate({
    proposal,
    candidates: c.specs.map((s) => s.name),
    findTool: (n) => c.tools.get(n),
    allowSideEffects: { node: false, host: false },
    minConfidence: 0.5,
    ...over,
  });
}

/** A value of the wrong JSON type for a property schema. */
function wrongValue(schema: JsonSchema): unknown {
  switch (schema.type) {
    case "string":
      return 12345;
    case "integer":
    case "number":
      return "not a number";
    case "boolean":
      return "yes";
    case "array":
      return "not an array";
    case "object":
      return "not an object";
    default:
      return undefined;
  }
}

describe("BFCL conformance of the accept gate", () => {
  it("loads the 300 simple and multiple samples", () => {
    expect(cases).toHaveLength(300);
  });

  it("accepts every ground-truth call (and each fits the node's proposal schema)", () => {
    const wrong = cases.filter((c) => gate(c, c.call.name, c.call.arguments).verdict !== "accepted");
    expect(wrong.map((c) => `${c.id}: ${gate(c, c.call.name, c.call.arguments).reason}`)).toEqual([]);
    for (const c of cases) expect(validateValue(buildProposalSchema(c.specs), c.call).ok, c.id).toBe(true);
  });

  const mutations: [string, (c: Case) => Verdict | "n/a"][] = [
    [
      "drop a required argument → invalid_args",
      (c) => {
        const spec = c.specs.find((s) => s.name === c.call.name)!;
        const required = ((spec.parameters.required as string[] | undefined) ?? []).filter(
          (k) => k in c.call.arguments,
        );
        if (required.length === 0) return "n/a";
        const { [required[0]!]: _dropped, ...rest } = c.call.arguments;
        return gate(c, c.call.name, rest).verdict;
      },
    ],
    [
      "add an unknown key → invalid_args",
      (c) => gate(c, c.call.name, { ...c.call.arguments, not_in_schema: 1 }).verdict,
    ],
    [
      "give an argument the wrong type → invalid_args",
      (c) => {
        const spec = c.specs.find((s) => s.name === c.call.name)!;
        const props = (spec.parameters.properties ?? {}) as Record<string, JsonSchema>;
        const key = Object.keys(c.call.arguments).find((k) => props[k] && wrongValue(props[k]) !== undefined);
        if (key === undefined) return "n/a";
        return gate(c, c.call.name, { ...c.call.arguments, [key]: wrongValue(props[key]!) }).verdict;
      },
    ],
    [
      "name a tool outside the candidates → unknown_tool",
      (c) => gate(c, "not_a_candidate_tool", c.call.arguments).verdict,
    ],
    ["name a registered tool that is no candidate → unknown_tool", (c) => gate(c, decoy.name, {}).verdict],
    ["a null name → declined", (c) => gate(c, null, {}).verdict],
  ];
  const expected: Record<string, Verdict> = {
    "drop a required argument → invalid_args": "invalid_args",
    "add an unknown key → invalid_args": "invalid_args",
    "give an argument the wrong type → invalid_args": "invalid_args",
    "name a tool outside the candidates → unknown_tool": "unknown_tool",
    "name a registered tool that is no candidate → unknown_tool": "unknown_tool",
    "a null name → declined": "declined",
  };

  it.each(mutations)("%s", (title, mutate) => {
    const results = cases.map((c) => ({ id: c.id, verdict: mutate(c) }));
    const applied = results.filter((r) => r.verdict !== "n/a");
    // Every mutation applies to every sample (each ground truth has a required, typed argument).
    expect(applied).toHaveLength(300);
    expect(applied.filter((r) => r.verdict !== expected[title]).map((r) => `${r.id}: ${r.verdict}`)).toEqual(
      [],
    );
  });

  it("the policy checks follow the schema checks on real BFCL tools", () => {
    const c = cases[0]!;
    const unsafe = new Map([...c.tools].map(([n, t]) => [n, { ...t, delegateSafe: false }]));
    expect(gate({ ...c, tools: unsafe }, c.call.name, c.call.arguments).verdict).toBe("side_effect_denied");
    expect(gate(c, c.call.name, c.call.arguments, { minConfidence: 0.95 }).verdict).toBe("low_confidence");
    expect(gate(c, c.call.name, c.call.arguments, { inputChars: 10, maxInputChars: 5 }).verdict).toBe(
      "input_too_long",
    );
  });
});
